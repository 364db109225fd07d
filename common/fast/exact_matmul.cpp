// exact_matmul.cpp (under the hood): the lesson's own product, bit for bit,
// with each weight read once for several input rows.
//
// ops::matmul_forward sums every output as ops::dot does: eight lanes, lane k
// adding w[i + k] * x[i + k] for i = 0, 8, 16, ... (a multiply, then an add:
// no fused multiply-add), then the lanes pairwise (k + k+4, then 0+2 and 1+3,
// then those two), then the bias. With B rows it runs that loop B times, and
// each run waits on its own four sums: the adds' latency, not the core's
// arithmetic, sets its pace.
//
// Here one block computes 4 weight rows against 6 input rows (2 with 16
// vector registers): 24 independent sums of eight lanes, each weight chunk
// loaded once for the six rows, while the next rows are asked for ahead; the
// rows after the last whole block of six go through the plain loop.
// Every lane does exactly the multiply and the add the plain loop does, in the
// same order, so every output equals ops::matmul_forward's to the last bit
// (tests/fast_test.cpp checks N = 1 .. 64 and shapes that are not multiples of
// the blocks). This file is compiled without contraction (CMakeLists.txt): an
// FMA here would change the bits.
#include <cstring>

#include "fast/fast.hpp"
#include "fast/lanes.hpp"  // add_lanes4
#include "ops.hpp"

namespace tang::fast {

namespace {

using Lanes = Eight;  // the plain loop's eight lanes
constexpr std::size_t kLanes = 8;
constexpr std::size_t kRowsAtOnce = 4;  // weight rows a block
#if defined(__AVX512F__)
constexpr std::size_t kInputsAtOnce = 6;  // 24 sums + 6 inputs + 1 weight of 32 registers
#else
constexpr std::size_t kInputsAtOnce = 2;  // 8 sums + 2 inputs + 1 weight of 16
#endif

__attribute__((no_sanitize("address", "undefined"))) Lanes load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Weight rows o .. o+3 against input rows n .. n+X-1.
template <std::size_t X>
__attribute__((no_sanitize("address", "undefined"))) void block(float* out, const float* inp,
                                                                const float* weight, std::size_t n,
                                                                std::size_t o, std::size_t IC,
                                                                std::size_t OC) {
  const float* rows = weight + o * IC;
  const float* next = rows + kRowsAtOnce * IC;
  const float* x = inp + n * IC;
  Lanes sums[X][kRowsAtOnce] = {};  // +0 in every lane, as the plain loop starts
  for (std::size_t i = 0; i < IC; i += kLanes) {
    for (std::size_t r = 0; r < kRowsAtOnce; ++r) __builtin_prefetch(next + r * IC + i);
    Lanes xi[X];
    for (std::size_t j = 0; j < X; ++j) xi[j] = load(x + j * IC + i);
    for (std::size_t r = 0; r < kRowsAtOnce; ++r) {
      const Lanes w = load(rows + r * IC + i);
      for (std::size_t j = 0; j < X; ++j) sums[j][r] += w * xi[j];  // a multiply, then an add
    }
  }
  for (std::size_t j = 0; j < X; ++j) add_lanes4(out + (n + j) * OC + o, sums[j]);
}

}  // namespace

void exact_matmul(float* out, const float* inp, const float* weight, const float* bias,
                  std::size_t N, std::size_t IC, std::size_t OC) {
  // the rows past the last whole block of inputs (all of them for a width the
  // lanes do not divide) go through the plain loop itself
  const std::size_t blocked = IC % kLanes == 0 ? N / kInputsAtOnce * kInputsAtOnce : 0;
  if (blocked < N)
    ops::matmul_forward(out + blocked * OC, inp + blocked * IC, weight, bias, N - blocked, IC, OC);
  std::size_t o = 0;
  for (; o + kRowsAtOnce <= OC && blocked > 0; o += kRowsAtOnce) {  // 4 weight rows, read once
    for (std::size_t n = 0; n < blocked; n += kInputsAtOnce)
      block<kInputsAtOnce>(out, inp, weight, n, o, IC, OC);
    if (bias) {
      for (std::size_t n = 0; n < blocked; ++n)
        for (std::size_t r = 0; r < kRowsAtOnce; ++r) out[n * OC + o + r] += bias[o + r];
    }
  }
  for (; o < OC; ++o) {  // the last OC % 4 rows, as the plain loop computes them
    for (std::size_t n = 0; n < blocked; ++n) {
      const float sum = ops::dot(weight + o * IC, inp + n * IC, IC);
      out[n * OC + o] = bias ? sum + bias[o] : sum;
    }
  }
}

}  // namespace tang::fast
