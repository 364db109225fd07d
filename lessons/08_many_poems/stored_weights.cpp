// stored_weights.cpp: the three weight formats and their matmuls.
//
// Every matmul here is shaped like ops::matmul_forward: weight rows outer, four
// at a time, input rows inner, so that each weight row is read from memory once
// for all N inputs (the point of batching), and the bias added last. Every sum
// adds in an order fixed by the code (no fused multiply-add, nothing chosen at
// run time), so each format gives the same bits on every x86-64-v3 machine, and
// each row of a batch the bits it has alone. Two things make batching pay:
//
//   several inputs per pass  each weight loaded (and widened) is used for three
//                            input rows (int8: two), from registers: 12 sums
//                            of four rows and three inputs fill AVX2's 16
//   the next rows asked for  while four rows are multiplied, the next four are
//                            prefetched, so that reading overlaps multiplying;
//                            without it a batch of 4 on a model too big for the
//                            cache took 1.9 times as long as one row, with it 1.2
//
//   fp32  ops::matmul_forward's sums, bit for bit
//   bf16  ops::dot4's lanes and additions, each weight widened to float32 as it
//         is loaded: ops::matmul_forward on the rounded weights, bit for bit
//   int8  Q8_0 x Q8_0: the weights quantized by exercise 08a when loaded, each
//         input row the same way at every matmul; then per block of 32 an
//         integer dot product, times both scales, added in float
#include "08_many_poems/stored_weights.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "08_many_poems/exercise/bf16_row.hpp"
#include "08_many_poems/exercise/quantize_row.hpp"
#include "ops.hpp"

namespace tang {

namespace {

// GCC vector types, as in ops.cpp: + and * lane by lane, kept in registers.
using Lanes = float __attribute__((vector_size(32)));  // 8 floats
using Quad = float __attribute__((vector_size(16)));   // 4 floats
using I32x8 = std::int32_t __attribute__((vector_size(32)));
using I16x16 = std::int16_t __attribute__((vector_size(32)));
using I16x8 = std::int16_t __attribute__((vector_size(16)));
constexpr std::size_t kLanes = sizeof(Lanes) / sizeof(float);

// Like ops.cpp's: the kernels read exactly the rows and inputs they are given;
// the sanitizer build checks their callers' buffers instead.
#define TANG_NOT_SANITIZED __attribute__((no_sanitize("address", "undefined")))

template <typename Vector, typename T>
TANG_NOT_SANITIZED Vector load(const T* p) {
  Vector v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// ops::dot's finish, the lanes added pairwise 8 -> 4 -> 2 -> 1.
float add_lanes(float (&lane)[kLanes]) {
  for (std::size_t width = kLanes / 2; width > 0; width /= 2) {
    for (std::size_t k = 0; k < width; ++k) lane[k] += lane[k + width];
  }
  return lane[0];
}

// The same additions for four rows at once, in registers: lane k += lane k+4
// (the two halves), then k += k+2, then 0 += 1; out (4).
void add_lanes4(float* out, const Lanes (&lanes)[4]) {
  Quad half[4];
  for (std::size_t r = 0; r < 4; ++r) {
    half[r] = __builtin_shufflevector(lanes[r], lanes[r], 0, 1, 2, 3) +
              __builtin_shufflevector(lanes[r], lanes[r], 4, 5, 6, 7);
  }
  // {0+2, 1+3} of rows 0 and 1, then of rows 2 and 3
  const Quad rows01 = __builtin_shufflevector(half[0], half[1], 0, 1, 4, 5) +
                      __builtin_shufflevector(half[0], half[1], 2, 3, 6, 7);
  const Quad rows23 = __builtin_shufflevector(half[2], half[3], 0, 1, 4, 5) +
                      __builtin_shufflevector(half[2], half[3], 2, 3, 6, 7);
  const Quad sums = __builtin_shufflevector(rows01, rows23, 0, 2, 4, 6) +
                    __builtin_shufflevector(rows01, rows23, 1, 3, 5, 7);
  std::memcpy(out, &sums, sizeof sums);
}

void add_bias(float* out, const float* bias, std::size_t N, std::size_t rows) {
  if (bias == nullptr) return;
  for (std::size_t n = 0; n < N; ++n) {
    for (std::size_t o = 0; o < rows; ++o) out[n * rows + o] += bias[o];
  }
}

// --- fp32 --------------------------------------------------------------------

// For four weight rows and X inputs (X = 1, 2 or 3), 4X sums in registers,
// each summed in ops::dot4's lanes and additions and finished by the same
// pairwise additions (add_lanes4): ops::matmul_forward's bits, with each weight
// loaded once for X inputs. Meanwhile it asks for the next four rows, as dot4
// does (a prefetch), so that reading them from memory overlaps the multiplying.
template <std::size_t X>
TANG_NOT_SANITIZED void fp32_dots(float* const (&out)[X], const float* rows,
                                  const float* const (&x)[X], std::size_t n) {
  const float* next = rows + 4 * n;
  Lanes sums[X][4] = {};
  for (std::size_t i = 0; i < n; i += kLanes) {
    for (std::size_t r = 0; r < 4; ++r) __builtin_prefetch(next + r * n + i);
    Lanes xi[X];
    for (std::size_t j = 0; j < X; ++j) xi[j] = load<Lanes>(x[j] + i);
    for (std::size_t r = 0; r < 4; ++r) {
      const Lanes w = load<Lanes>(rows + r * n + i);
      for (std::size_t j = 0; j < X; ++j) sums[j][r] += w * xi[j];
    }
  }
  for (std::size_t j = 0; j < X; ++j) add_lanes4(out[j], sums[j]);
}

// Inputs n .. n+X-1 against weight rows o .. o+3.
template <std::size_t X>
void fp32_tile(float* out, const float* inp, const float* weight, std::size_t n, std::size_t cols,
               std::size_t rows, std::size_t o) {
  float* outs[X];
  const float* xs[X];
  for (std::size_t j = 0; j < X; ++j) {
    outs[j] = out + (n + j) * rows + o;
    xs[j] = inp + (n + j) * cols;
  }
  fp32_dots<X>(outs, weight + o * cols, xs, cols);
}

void fp32_matmul(float* out, const float* inp, const float* weight, std::size_t N, std::size_t cols,
                 std::size_t rows) {
  if (cols % kLanes != 0) return ops::matmul_forward(out, inp, weight, nullptr, N, cols, rows);
  std::size_t o = 0;
  for (; o + 4 <= rows; o += 4) {  // four weight rows, read once for all N inputs
    std::size_t n = 0;
    // three inputs at a time (12 sums, 3 inputs and a weight fill the 16 registers)
    for (; n + 3 <= N; n += 3) fp32_tile<3>(out, inp, weight, n, cols, rows, o);
    if (N - n == 2) fp32_tile<2>(out, inp, weight, n, cols, rows, o);
    if (N - n == 1) fp32_tile<1>(out, inp, weight, n, cols, rows, o);
  }
  for (; o < rows; ++o) {  // the last rows % 4, as ops::matmul_forward does them
    for (std::size_t n = 0; n < N; ++n)
      out[n * rows + o] = ops::dot(weight + o * cols, inp + n * cols, cols);
  }
}

// --- bf16 --------------------------------------------------------------------

// The bf16 weights are rounded from float32 by exercise 08b (round_to_bf16) and
// widened back by float_from_bf16 (exercise/bf16_row.hpp).

// out[j][r] = row_r . x_j for R rows of n bf16 weights and X input rows (R = 4:
// ops.cpp's dot4, R = 1: its dot), with the same additions in the same order as
// those. Each weight is widened once for all X inputs: for a batch, the widening
// is shared as the reading is.
template <std::size_t R, std::size_t X>
TANG_NOT_SANITIZED void bf16_dots(float* const (&out)[X], const std::uint16_t* rows,
                                  const float* const (&x)[X], std::size_t n) {
  const std::uint16_t* next = rows + R * n;
  Lanes lanes[X][R] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    // the next rows, asked for ahead (as fp32_dots); 8 weights are 16 bytes: every other step
    if (i % (2 * kLanes) == 0) {
      for (std::size_t r = 0; r < R; ++r) __builtin_prefetch(next + r * n + i);
    }
    Lanes xi[X];
    for (std::size_t j = 0; j < X; ++j) xi[j] = load<Lanes>(x[j] + i);
    for (std::size_t r = 0; r < R; ++r) {
      // 8 weights widened as a loop: GCC makes it one vpmovzxwd from memory and a
      // shift, where __builtin_convertvector of a loaded vector costs four
      Lanes w;
      for (std::size_t k = 0; k < kLanes; ++k) w[k] = float_from_bf16(rows[r * n + i + k]);
      for (std::size_t j = 0; j < X; ++j) lanes[j][r] += w * xi[j];
    }
  }
  for (std::size_t j = 0; j < X; ++j) {
    if constexpr (R == 4) {
      if (i == n) {  // no tail: our matrices' rows are 8k long
        add_lanes4(out[j], lanes[j]);
        continue;
      }
    }
    for (std::size_t r = 0; r < R; ++r) {
      float lane[kLanes];
      for (std::size_t k = 0; k < kLanes; ++k) lane[k] = lanes[j][r][k];
      for (std::size_t k = 0; i + k < n; ++k)
        lane[k] += float_from_bf16(rows[r * n + i + k]) * x[j][i + k];
      out[j][r] = add_lanes(lane);
    }
  }
}

// Inputs n .. n+X-1 against weight rows o .. o+R-1.
template <std::size_t R, std::size_t X>
void bf16_tile(float* out, const float* inp, const std::uint16_t* weight, std::size_t n,
               std::size_t cols, std::size_t rows, std::size_t o) {
  float* outs[X];
  const float* xs[X];
  for (std::size_t j = 0; j < X; ++j) {
    outs[j] = out + (n + j) * rows + o;
    xs[j] = inp + (n + j) * cols;
  }
  bf16_dots<R, X>(outs, weight + o * cols, xs, cols);
}

// Weight rows o .. o+R-1 for all N inputs, three at a time (as fp32_matmul).
template <std::size_t R>
void bf16_rows(float* out, const float* inp, const std::uint16_t* weight, std::size_t N,
               std::size_t cols, std::size_t rows, std::size_t o) {
  std::size_t n = 0;
  for (; n + 3 <= N; n += 3) bf16_tile<R, 3>(out, inp, weight, n, cols, rows, o);
  if (N - n == 2) bf16_tile<R, 2>(out, inp, weight, n, cols, rows, o);
  if (N - n == 1) bf16_tile<R, 1>(out, inp, weight, n, cols, rows, o);
}

void bf16_matmul(float* out, const float* inp, const std::uint16_t* weight, std::size_t N,
                 std::size_t cols, std::size_t rows) {
  std::size_t o = 0;
  for (; o + 4 <= rows; o += 4) bf16_rows<4>(out, inp, weight, N, cols, rows, o);
  for (; o < rows; ++o) bf16_rows<1>(out, inp, weight, N, cols, rows, o);
}

// --- int8 --------------------------------------------------------------------

// One input row as exercise 08a quantizes it (the same quants and scales, for
// finite x; stored_weights_test checks it), the quants widened to int16 for
// int8_dots. In vector loops: std::lround is a call per value, and with it the
// quantizing of a 512-wide input row took half as long as the 128 x 512 matmul.
void quantize_input(const float* x, std::size_t n, std::int16_t* xq, float* xs) {
  for (std::size_t b = 0; b < n / kQuantBlock; ++b) {
    const float* block = x + b * kQuantBlock;  // (32)
    // max |x| on the bits: a float's magnitude orders as its integer does (NaN skipped)
    std::uint32_t max_bits = 0;
    for (std::size_t i = 0; i < kQuantBlock; ++i) {
      const std::uint32_t magnitude = std::bit_cast<std::uint32_t>(block[i]) & 0x7fffffffu;
      max_bits = std::max(max_bits, magnitude > 0x7f800000u ? 0u : magnitude);
    }
    const float scale = std::bit_cast<float>(max_bits) / 127.0f;
    xs[b] = scale;
    std::int16_t* q = xq + b * kQuantBlock;  // (32)
    if (scale == 0.0f) {
      std::fill(q, q + kQuantBlock, std::int16_t{0});
      continue;
    }
    for (std::size_t i = 0; i < kQuantBlock; i += kLanes) {
      const Lanes v = load<Lanes>(block + i) / scale;
      // clamped first (NaN to -127), so that every conversion to int is defined
      const Lanes low = v >= -127.0f ? v : -127.0f;
      const Lanes c = low <= 127.0f ? low : 127.0f;
      // rounded half away from zero, as std::lround: truncate, then step away
      // from zero where the fraction (exact in float) is at least one half
      const I32x8 t = __builtin_convertvector(c, I32x8);
      const Lanes fraction = c - __builtin_convertvector(t, Lanes);
      const I32x8 rounded = t - (fraction >= 0.5f) + (fraction <= -0.5f);  // a true mask is -1
      const I16x8 narrow = __builtin_convertvector(rounded, I16x8);
      std::memcpy(q + i, &narrow, sizeof narrow);
    }
  }
}

// Two AVX2 instructions named by their intrinsics, where GCC's vector code makes
// several of each (with those, the 17 int8 products of a step took about 1.5 times
// as long: bench_08_many_poems, step_matmul/plain/int8):
//   widen      16 int8 from memory to 16 int16 lanes (vpmovsxbw)
//   pair_sums  16 int16 lanes times 16 others, neighbouring products added into
//              8 int32 lanes: lane k = a[2k] b[2k] + a[2k+1] b[2k+1] (vpmaddwd)
[[gnu::always_inline]] inline I16x16 widen(const std::int8_t* p) {
  __m128i bytes;
  std::memcpy(&bytes, p, sizeof bytes);
  return reinterpret_cast<I16x16>(_mm256_cvtepi8_epi16(bytes));
}
[[gnu::always_inline]] inline I32x8 pair_sums(I16x16 a, I16x16 b) {
  return reinterpret_cast<I32x8>(
      _mm256_madd_epi16(reinterpret_cast<__m256i>(a), reinterpret_cast<__m256i>(b)));
}

// out[j][r] = sum over blocks b of (w_rb . x_jb in integers) * w_scale_rb * x_scale_jb
// for R rows of `cols` quants and X input rows: weights int8, the inputs int16
// (quantize_input). Each weight block is widened once for all X inputs (the
// batch's saving: the widening costs as much as the multiplying). Each block
// leaves 8 lanes of exact integers (each at most 4 x 127 x 127, exact in float),
// scaled and added into 8 float lanes: one horizontal sum a row, at the end.
template <std::size_t R, std::size_t X>
TANG_NOT_SANITIZED void int8_dots(float* const (&out)[X], const std::int8_t* quants,
                                  const float* scales, const std::int16_t* const (&xq)[X],
                                  const float* const (&xs)[X], std::size_t cols) {
  const std::size_t blocks = cols / kQuantBlock;
  const std::int8_t* next = quants + R * cols;  // the next rows' quants and scales
  const float* next_scales = scales + R * blocks;
  Lanes sums[X][R] = {};
  for (std::size_t b = 0; b < blocks; ++b) {
    // asked for ahead, as fp32_dots does: a block is half a cache line of quants,
    // a 16th of a line of scales
    if (b % 2 == 0) {
      for (std::size_t r = 0; r < R; ++r) __builtin_prefetch(next + r * cols + b * kQuantBlock);
    }
    if (b % 16 == 0) {
      for (std::size_t r = 0; r < R; ++r) __builtin_prefetch(next_scales + r * blocks + b);
    }
    I16x16 x0[X], x1[X];
    for (std::size_t j = 0; j < X; ++j) {
      x0[j] = load<I16x16>(xq[j] + b * kQuantBlock);
      x1[j] = load<I16x16>(xq[j] + b * kQuantBlock + 16);
    }
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
      const std::int8_t* w = quants + r * cols + b * kQuantBlock;
      const I16x16 w0 = widen(w), w1 = widen(w + 16);
      for (std::size_t j = 0; j < X; ++j) {
        // lane k: w[2k] x[2k] + w[2k+1] x[2k+1] + (the same 16 further on), in
        // exact integers (each at most 4 x 127 x 127)
        const I32x8 block = pair_sums(w0, x0[j]) + pair_sums(w1, x1[j]);
        sums[j][r] += __builtin_convertvector(block, Lanes) * (scales[r * blocks + b] * xs[j][b]);
      }
    }
  }
  for (std::size_t j = 0; j < X; ++j) {
    if constexpr (R == 4) {
      add_lanes4(out[j], sums[j]);
    } else {
      for (std::size_t r = 0; r < R; ++r) {
        float lane[kLanes];
        for (std::size_t k = 0; k < kLanes; ++k) lane[k] = sums[j][r][k];
        out[j][r] = add_lanes(lane);
      }
    }
  }
}

// Weight rows o .. o+R-1 for all N inputs, two inputs at a time: each widened
// weight block serves both.
template <std::size_t R>
void int8_rows(float* out, const std::int8_t* quants, const float* scales, const std::int16_t* xq,
               const float* xs, std::size_t N, std::size_t cols, std::size_t rows, std::size_t o) {
  const std::size_t blocks = cols / kQuantBlock;
  const std::int8_t* w = quants + o * cols;
  const float* ws = scales + o * blocks;
  std::size_t n = 0;
  for (; n + 2 <= N; n += 2) {
    int8_dots<R, 2>({out + n * rows + o, out + (n + 1) * rows + o}, w, ws,
                    {xq + n * cols, xq + (n + 1) * cols}, {xs + n * blocks, xs + (n + 1) * blocks},
                    cols);
  }
  if (n < N) int8_dots<R, 1>({out + n * rows + o}, w, ws, {xq + n * cols}, {xs + n * blocks}, cols);
}

// `cols` is a multiple of 32: the stored rows' width, padded with zero weights
// when the matrix's own width `width` is not (an 80-wide model); each input row
// is padded with zeros the same way, so the padding adds nothing.
void int8_matmul(float* out, const float* inp, const std::int8_t* quants, const float* scales,
                 std::size_t N, std::size_t width, std::size_t cols, std::size_t rows) {
  const std::size_t blocks = cols / kQuantBlock;
  std::vector<std::int16_t> xq(N * cols);                     // (N, cols) the inputs' quants
  std::vector<float> xs(N * blocks);                          // (N, cols / 32) and their scales
  std::vector<float> padded(width == cols ? 0 : cols, 0.0f);  // (cols) one input row, padded
  for (std::size_t n = 0; n < N; ++n) {
    const float* x = inp + n * width;
    if (width != cols) {  // the tail stays zero
      std::copy(x, x + width, padded.begin());
      x = padded.data();
    }
    quantize_input(x, cols, xq.data() + n * cols, xs.data() + n * blocks);
  }
  std::size_t o = 0;
  for (; o + 4 <= rows; o += 4)
    int8_rows<4>(out, quants, scales, xq.data(), xs.data(), N, cols, rows, o);
  for (; o < rows; ++o) int8_rows<1>(out, quants, scales, xq.data(), xs.data(), N, cols, rows, o);
}

std::string sizes(std::size_t rows, std::size_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

}  // namespace

std::string format_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::kFp32:
      return "fp32";
    case WeightFormat::kBf16:
      return "bf16";
    case WeightFormat::kInt8:
      return "int8";
  }
  throw std::invalid_argument("format_name: not a weight format");
}

std::optional<WeightFormat> format_named(const std::string& name) {
  for (WeightFormat f : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
    if (format_name(f) == name) return f;
  }
  return std::nullopt;
}

StoredMatrix::StoredMatrix(const float* fp32, std::size_t rows, std::size_t cols,
                           WeightFormat format)
    : format_(format), rows_(rows), cols_(cols) {
  if (fp32 == nullptr && rows * cols > 0)
    throw std::invalid_argument("StoredMatrix: no weights given for a " + sizes(rows, cols) +
                                " matrix");
  switch (format) {
    case WeightFormat::kFp32:
      fp32_ = fp32;
      break;
    case WeightFormat::kBf16:
      bf16_.resize(rows * cols);
      for (std::size_t r = 0; r < rows; ++r)  // exercise 08b, a row at a time
        round_to_bf16(fp32 + r * cols, cols, bf16_.data() + r * cols);
      break;
    case WeightFormat::kInt8: {
      // rows in whole blocks of 32: a width that is not a multiple (80) is
      // padded with zero weights, which add nothing to any product
      padded_cols_ = (cols + kQuantBlock - 1) / kQuantBlock * kQuantBlock;
      quants_.resize(rows * padded_cols_);
      scales_.resize(rows * (padded_cols_ / kQuantBlock));
      std::vector<float> row(padded_cols_, 0.0f);  // (padded_cols) one row, its tail zero
      for (std::size_t r = 0; r < rows; ++r) {
        std::copy(fp32 + r * cols, fp32 + (r + 1) * cols, row.begin());
        quantize_row(row.data(), padded_cols_, quants_.data() + r * padded_cols_,
                     scales_.data() + r * (padded_cols_ / kQuantBlock));
      }
      break;
    }
  }
}

void StoredMatrix::matmul(float* out, const float* inp, const float* bias, std::size_t N) const {
  switch (format_) {
    case WeightFormat::kFp32:
      fp32_matmul(out, inp, fp32_, N, cols_, rows_);
      break;
    case WeightFormat::kBf16:
      bf16_matmul(out, inp, bf16_.data(), N, cols_, rows_);
      break;
    case WeightFormat::kInt8:
      int8_matmul(out, inp, quants_.data(), scales_.data(), N, cols_, padded_cols_, rows_);
      break;
  }
  add_bias(out, bias, N, rows_);  // last, as in ops::matmul_forward
}

std::size_t StoredMatrix::bytes() const {
  switch (format_) {
    case WeightFormat::kFp32:
      return rows_ * cols_ * sizeof(float);
    case WeightFormat::kBf16:
      return bf16_.size() * sizeof(std::uint16_t);
    case WeightFormat::kInt8:
      return quants_.size() * sizeof(std::int8_t) + scales_.size() * sizeof(float);
  }
  return 0;
}

StoredWeights::StoredWeights(const GPT& model, WeightFormat format)
    : format(format),
      output(model.weights().wte, model.config().vocab_size, model.config().n_embd, format) {
  require_multi_head(model.config(), "lesson 08's stored weights");
  const std::size_t C = model.config().n_embd;
  layers.reserve(model.weights().layers.size());
  for (const LayerWeights& w : model.weights().layers) {
    layers.push_back(
        Layer{StoredMatrix(w.qkv_w, 3 * C, C, format), StoredMatrix(w.attn_proj_w, C, C, format),
              StoredMatrix(w.fc_w, 4 * C, C, format), StoredMatrix(w.fc_proj_w, C, 4 * C, format)});
  }
}

std::size_t StoredWeights::bytes() const {
  std::size_t total = output.bytes();
  for (const Layer& l : layers)
    total += l.qkv.bytes() + l.attn_proj.bytes() + l.fc.bytes() + l.fc_proj.bytes();
  return total;
}

}  // namespace tang
