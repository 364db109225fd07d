// few_rows_matmul.cpp (under the hood): the product of a decoding step, a few
// input rows against a large weight matrix, streaming each weight once.
//
// A decoding step multiplies B rows (B = 1 .. 32 texts) by every weight matrix.
// OpenBLAS's sgemm is made for large products: it first copies ("packs")
// blocks of the weight matrix into its own layout, work that pays back over
// many rows. Here each block of 4 weight rows is read once and multiplied into
// up to 6 input rows at a time (2 without AVX-512) with fused multiply-adds, in
// the CPU's widest vectors (16 floats with AVX-512), 24 sums in registers, while
// the next 4 rows are asked for ahead (a prefetch) so that reading overlaps the
// arithmetic. The sums run in another order than ops::matmul_forward's, with
// FMA: the results differ from the plain loop in the last bits (fast_test).
#include <cstring>

#include "fast/fast.hpp"
#include "fast/lanes.hpp"  // add_lanes4
#include "fast/wide.hpp"
#include "ops.hpp"

namespace tang::fast {

namespace {

#if defined(__AVX512F__)
constexpr std::size_t kInputsAtOnce = 6;  // 24 sums + 6 inputs + 1 weight of 32 registers
#else
constexpr std::size_t kInputsAtOnce = 2;  // 8 sums + 2 inputs + 1 weight of 16
#endif
constexpr std::size_t kWidth = kWideLanes;
constexpr std::size_t kRowsAtOnce = 4;

// out[r] = the sum of the lanes of v[r] for 4 sums at once (lanes.hpp), the 16
// lanes of a wide register first added to 8.
void add_wide_lanes4(float* out, const Wide (&v)[kRowsAtOnce]) {
  Eight eight[kRowsAtOnce];
  for (std::size_t r = 0; r < kRowsAtOnce; ++r) {
#if defined(__AVX512F__)
    eight[r] = __builtin_shufflevector(v[r], v[r], 0, 1, 2, 3, 4, 5, 6, 7) +
               __builtin_shufflevector(v[r], v[r], 8, 9, 10, 11, 12, 13, 14, 15);
#else
    eight[r] = v[r];
#endif
  }
  add_lanes4(out, eight);
}

// out[j][r] = row_r . x_j for 4 weight rows of n and X inputs; n % kWidth == 0.
template <std::size_t X>
__attribute__((no_sanitize("address", "undefined"))) void dots(float* const (&out)[X],
                                                               const float* rows,
                                                               const float* const (&x)[X],
                                                               std::size_t n) {
  const float* next = rows + kRowsAtOnce * n;
  Wide sums[X][kRowsAtOnce] = {};
  for (std::size_t i = 0; i < n; i += kWidth) {
    for (std::size_t r = 0; r < kRowsAtOnce; ++r) __builtin_prefetch(next + r * n + i);
    Wide xi[X];
    for (std::size_t j = 0; j < X; ++j) xi[j] = load_wide(x[j] + i);
    for (std::size_t r = 0; r < kRowsAtOnce; ++r) {
      const Wide w = load_wide(rows + r * n + i);
      for (std::size_t j = 0; j < X; ++j) sums[j][r] += w * xi[j];  // one FMA
    }
  }
  for (std::size_t j = 0; j < X; ++j) add_wide_lanes4(out[j], sums[j]);
}

// Inputs n .. n+X-1 against weight rows o .. o+3.
template <std::size_t X>
void tile(float* out, const float* inp, const float* weight, std::size_t n, std::size_t IC,
          std::size_t OC, std::size_t o) {
  float* outs[X];
  const float* xs[X];
  for (std::size_t j = 0; j < X; ++j) {
    outs[j] = out + (n + j) * OC + o;
    xs[j] = inp + (n + j) * IC;
  }
  dots<X>(outs, weight + o * IC, xs, IC);
}

}  // namespace

void few_rows_matmul(float* out, const float* inp, const float* weight, const float* bias,
                     std::size_t N, std::size_t IC, std::size_t OC) {
  if (IC % kWidth != 0) return ops::matmul_forward(out, inp, weight, bias, N, IC, OC);
  std::size_t o = 0;
  for (; o + kRowsAtOnce <= OC; o += kRowsAtOnce) {  // 4 weight rows, read once for all N inputs
    std::size_t n = 0;
    for (; n + kInputsAtOnce <= N; n += kInputsAtOnce)
      tile<kInputsAtOnce>(out, inp, weight, n, IC, OC, o);
    // what is left (fewer than six): a tile of 4, of 2, of 1, as they fit
    if (N - n >= 4) {
      tile<4>(out, inp, weight, n, IC, OC, o);
      n += 4;
    }
    if (N - n >= 2) {
      tile<2>(out, inp, weight, n, IC, OC, o);
      n += 2;
    }
    if (N - n == 1) tile<1>(out, inp, weight, n, IC, OC, o);
  }
  for (; o < OC; ++o) {  // the last OC % 4 rows
    for (std::size_t n = 0; n < N; ++n)
      out[n * OC + o] = ops::dot(weight + o * IC, inp + n * IC, IC);
  }
  if (bias) {
    for (std::size_t n = 0; n < N; ++n) {
      for (std::size_t k = 0; k < OC; ++k) out[n * OC + k] += bias[k];
    }
  }
}

}  // namespace tang::fast
