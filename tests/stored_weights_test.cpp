// stored_weights_test: lesson 08's weight formats (lessons/08_many_poems/stored_weights.hpp).
//
// fp32 is ops::matmul_forward, bit for bit. bf16: the rounding of each weight
// (exact values, ties to even, infinities and NaN, relative error at most 2^-8)
// and, on the rounded weights, ops::matmul_forward's bits again. int8: exact
// answers where every number is exact, the inputs quantized as exercise 08a
// does, and otherwise the fp32 product within a bound derived below. Then the
// bytes of the shipped model in each format (skipped when it is missing). The
// int8 tests need exercise 08a, and skip in the learner build until it is done.

#include "08_many_poems/stored_weights.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "08_many_poems/exercise/quantize_row.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "ops.hpp"

namespace {

using tang::kQuantBlock;
using tang::StoredMatrix;
using tang::WeightFormat;

// float's unit roundoff: one rounding errs by at most this much, relatively
constexpr double kUnit = 0x1p-24;

std::vector<float> random_floats(std::mt19937& gen, std::size_t n, float sigma) {
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<float> v(n);
  for (float& x : v) x = normal(gen);
  return v;
}

std::vector<float> matmul(const StoredMatrix& m, const std::vector<float>& inp, const float* bias) {
  const std::size_t N = inp.size() / m.cols();
  std::vector<float> out(N * m.rows());
  m.matmul(out.data(), inp.data(), bias, N);
  return out;
}

std::vector<float> ops_matmul(const std::vector<float>& w, const std::vector<float>& inp,
                              const float* bias, std::size_t rows, std::size_t cols) {
  const std::size_t N = inp.size() / cols;
  std::vector<float> out(N * rows);
  tang::ops::matmul_forward(out.data(), inp.data(), w.data(), bias, N, cols, rows);
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// What a format keeps of each weight: a (n x 1) matrix times the input 1.
std::vector<float> stored_values(const std::vector<float>& w, WeightFormat format) {
  const StoredMatrix m(w.data(), w.size(), 1, format);
  const float one = 1.0f;
  std::vector<float> out(w.size());
  m.matmul(out.data(), &one, nullptr, 1);
  return out;
}

// bf16 rounding written another way, for normal floats: 8 significant bits,
// m in [0.5, 1) times 2^8 rounded by nearbyint, whose default is ties to even.
float bf16_reference(float w) {
  int exponent = 0;
  const float m = std::frexp(w, &exponent);
  return std::ldexp(std::nearbyint(std::ldexp(m, 8)), exponent - 8);
}

// int8 needs exercise 08a, which the learner build links as a stub.
bool exercise_08a_done() {
  std::vector<float> x(kQuantBlock, 1.0f), scale(1);
  std::vector<std::int8_t> q(kQuantBlock);
  try {
    tang::quantize_row(x.data(), kQuantBlock, q.data(), scale.data());
    return true;
  } catch (const tang::NotImplemented&) {
    return false;
  }
}
#define NEED_EXERCISE_08A() \
  if (!exercise_08a_done()) GTEST_SKIP() << "exercise 08a is not done yet in this build"

// --- names -------------------------------------------------------------------

TEST(WeightFormats, NamesGoBothWays) {
  for (WeightFormat f : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8})
    EXPECT_EQ(tang::format_named(tang::format_name(f)), f);
  EXPECT_EQ(tang::format_name(WeightFormat::kBf16), "bf16");
  EXPECT_FALSE(tang::format_named("FP32").has_value());
  EXPECT_FALSE(tang::format_named("int4").has_value());
  EXPECT_FALSE(tang::format_named("").has_value());
}

// --- fp32 --------------------------------------------------------------------

TEST(Fp32Weights, AreOpsMatmulForwardBitForBit) {
  std::mt19937 gen(1);
  for (std::size_t cols : {45, 128, 512}) {  // 45: a tail after the last eight
    const std::size_t rows = 37, N = 3;      // 37: one row after the last four
    const std::vector<float> w = random_floats(gen, rows * cols, 0.1f);
    const std::vector<float> x = random_floats(gen, N * cols, 1.0f);
    const std::vector<float> bias = random_floats(gen, rows, 0.1f);
    const StoredMatrix m(w.data(), rows, cols, WeightFormat::kFp32);
    EXPECT_TRUE(same_bits(matmul(m, x, bias.data()), ops_matmul(w, x, bias.data(), rows, cols)))
        << "cols " << cols;
    EXPECT_TRUE(same_bits(matmul(m, x, nullptr), ops_matmul(w, x, nullptr, rows, cols)));
    EXPECT_EQ(m.bytes(), rows * cols * sizeof(float));
  }
}

TEST(Fp32Weights, UseTheCheckpointsFloatsInPlace) {
  std::vector<float> w(4 * 32, 1.0f);
  const StoredMatrix m(w.data(), 4, 32, WeightFormat::kFp32);
  const std::vector<float> x(32, 1.0f);
  EXPECT_EQ(matmul(m, x, nullptr), std::vector<float>(4, 32.0f));
  w[0] = 2.0f;  // no copy was made
  EXPECT_EQ(matmul(m, x, nullptr), (std::vector<float>{33.0f, 32.0f, 32.0f, 32.0f}));
}

// --- bf16 --------------------------------------------------------------------

TEST(Bf16Weights, RoundToNearestEven) {
  struct Case {
    std::uint32_t in, out;
    const char* what;
  };
  const Case cases[] = {
      {0x3f800000, 0x3f800000, "1 is exact"},
      {0xc0200000, 0xc0200000, "-2.5 is exact"},
      {0x3e200000, 0x3e200000, "0.15625 is exact"},
      {0x7f7f0000, 0x7f7f0000, "the largest bf16 is exact"},
      {0x00010000, 0x00010000, "a subnormal bf16 is exact"},
      {0x3f808000, 0x3f800000, "a tie goes down to the even 1"},
      {0x3f818000, 0x3f820000, "a tie goes up to the even 1 + 2^-6"},
      {0xbf808000, 0xbf800000, "negative ties alike"},
      {0x3fff8000, 0x40000000, "a tie carries into the exponent: 2"},
      {0x00008000, 0x00000000, "a subnormal tie goes to the even 0"},
      {0x00018000, 0x00020000, "and up to an even subnormal"},
      {0x3f808001, 0x3f810000, "just above a tie: up"},
      {0x3f807fff, 0x3f800000, "just below a tie: down"},
      {0x7f7fffff, 0x7f800000, "the largest float rounds to infinity"},
      {0x7f7f7fff, 0x7f7f0000, "below the halfway to infinity stays finite"},
      {0x7f800000, 0x7f800000, "infinity"},
      {0xff800000, 0xff800000, "-infinity"},
  };
  std::vector<float> w;
  for (const Case& c : cases) w.push_back(std::bit_cast<float>(c.in));
  const std::vector<float> stored = stored_values(w, WeightFormat::kBf16);
  for (std::size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(stored[i]), cases[i].out)
        << std::hex << "0x" << cases[i].in << ": " << cases[i].what;
  }
}

TEST(Bf16Weights, NaNStaysNaN) {
  // payloads in the dropped bits only, or all ones: naive rounding makes inf or -0
  for (std::uint32_t bits : {0x7fc00000u, 0x7f800001u, 0x7fffffffu, 0xffffffffu, 0xff800001u}) {
    const std::vector<float> stored =
        stored_values({std::bit_cast<float>(bits)}, WeightFormat::kBf16);
    EXPECT_TRUE(std::isnan(stored[0])) << std::hex << "0x" << bits << " became " << stored[0];
  }
}

TEST(Bf16Weights, EachWeightIsWithinTwoToTheMinus8) {
  std::mt19937 gen(2);
  std::uniform_int_distribution<int> exponent(-100, 100);
  std::vector<float> w = random_floats(gen, 20000, 1.0f);
  for (float& v : w) v = std::ldexp(v, exponent(gen));
  const std::vector<float> stored = stored_values(w, WeightFormat::kBf16);
  for (std::size_t i = 0; i < w.size(); ++i) {
    // 8 significant bits: half a unit of the last is 2^-8 of the power of two below |w|
    ASSERT_LE(std::abs(static_cast<double>(stored[i]) - w[i]), std::ldexp(std::abs(w[i]), -8))
        << w[i];
    ASSERT_EQ(stored[i], bf16_reference(w[i])) << w[i];
  }
}

TEST(Bf16Weights, MultiplyAsOpsMatmulForwardOnTheRoundedWeights) {
  std::mt19937 gen(3);
  for (std::size_t cols : {45, 128, 512}) {
    const std::size_t rows = 37, N = 3;
    const std::vector<float> w = random_floats(gen, rows * cols, 0.1f);
    const std::vector<float> x = random_floats(gen, N * cols, 1.0f);
    const std::vector<float> bias = random_floats(gen, rows, 0.1f);
    std::vector<float> rounded(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) rounded[i] = bf16_reference(w[i]);
    const StoredMatrix m(w.data(), rows, cols, WeightFormat::kBf16);
    EXPECT_TRUE(
        same_bits(matmul(m, x, bias.data()), ops_matmul(rounded, x, bias.data(), rows, cols)))
        << "cols " << cols;
    EXPECT_EQ(m.bytes(), rows * cols * 2);
  }
}

TEST(Bf16Weights, MultiplyCloseToFp32) {
  // y = sum_i w_i x_i against the bf16 result: each w_i moves by at most 2^-8 |w_i|,
  // so y by 2^-8 S, S = sum_i |w_i x_i|; the float sums of ops::dot (cols/8 additions
  // in a lane, 3 across, one rounding a product) and the bias add a few units of 2^-24
  // of S and of |y|. The reference is computed in double.
  std::mt19937 gen(4);
  for (std::size_t cols : {128, 512}) {
    const std::size_t rows = 64, N = 4;
    const std::vector<float> w = random_floats(gen, rows * cols, 0.05f);
    const std::vector<float> x = random_floats(gen, N * cols, 1.0f);
    const std::vector<float> bias = random_floats(gen, rows, 0.1f);
    const std::vector<float> y =
        matmul(StoredMatrix(w.data(), rows, cols, WeightFormat::kBf16), x, bias.data());
    double worst = 0.0;  // the largest error as a share of its bound
    for (std::size_t n = 0; n < N; ++n) {
      for (std::size_t o = 0; o < rows; ++o) {
        double exact = bias[o], S = 0.0;
        for (std::size_t i = 0; i < cols; ++i) {
          exact += static_cast<double>(w[o * cols + i]) * x[n * cols + i];
          S += std::abs(static_cast<double>(w[o * cols + i]) * x[n * cols + i]);
        }
        const double bound = (0x1p-8 + (cols / 8.0 + 8) * kUnit * 1.01) * S +
                             2 * kUnit * (std::abs(exact) + std::abs(bias[o]));
        const double error = std::abs(y[n * rows + o] - exact);
        ASSERT_LE(error, bound) << "row " << o << ", input " << n << ", cols " << cols;
        worst = std::max(worst, error / bound);
      }
    }
    std::printf("bf16, cols %zu: the largest error is %.3f of its bound\n", cols, worst);
  }
}

// --- int8 --------------------------------------------------------------------

TEST(Int8Weights, OfIntegersUpTo127AreExact) {
  NEED_EXERCISE_08A();
  // every block's largest magnitude is 127, so every scale is 1 and every quant
  // the integer itself: the product is the integer dot product, plus the bias
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> small(-127, 127);
  const std::size_t rows = 6, cols = 96, N = 3;
  std::vector<float> w(rows * cols), x(N * cols);
  for (float& v : w) v = static_cast<float>(small(gen));
  for (float& v : x) v = static_cast<float>(small(gen));
  for (std::size_t i = 0; i < w.size(); i += kQuantBlock) w[i] = i % 64 ? 127.0f : -127.0f;
  for (std::size_t i = 0; i < x.size(); i += kQuantBlock) x[i + 5] = -127.0f;
  const std::vector<float> bias = {0.5f, -0.25f, 0.0f, 1.0f, 2.0f, -3.0f};
  const std::vector<float> y =
      matmul(StoredMatrix(w.data(), rows, cols, WeightFormat::kInt8), x, bias.data());
  for (std::size_t n = 0; n < N; ++n) {
    for (std::size_t o = 0; o < rows; ++o) {
      long dot = 0;
      for (std::size_t i = 0; i < cols; ++i)
        dot += std::lround(w[o * cols + i]) * std::lround(x[n * cols + i]);
      EXPECT_EQ(y[n * rows + o], static_cast<float>(dot) + bias[o]) << "row " << o;
    }
  }
}

TEST(Int8Weights, QuantizeEachInputRowAsExercise08aDoes) {
  NEED_EXERCISE_08A();
  // W = 127 I: row r has quant 127 at r with scale 1, so out[r] is 127 q_r x_scale
  // (one rounding, no other term): the input quants and scales read back exactly.
  const std::size_t C = 64, N = 40;
  std::vector<float> w(C * C, 0.0f);
  for (std::size_t r = 0; r < C; ++r) w[r * C + r] = 127.0f;
  const StoredMatrix m(w.data(), C, C, WeightFormat::kInt8);
  std::mt19937 gen(6);
  std::uniform_int_distribution<int> steps(-254, 254), exponent(-20, 20);
  std::vector<float> x = random_floats(gen, N * C, 1.0f);
  for (std::size_t n = 0; n < N; ++n) {
    float* row = x.data() + n * C;
    const float step = std::ldexp(1.0f, exponent(gen));
    if (n % 2 == 0) {
      // halves of a power-of-two scale: every x / scale is exact, a quarter of them ties
      for (std::size_t i = 0; i < C; ++i) row[i] = 0.5f * step * static_cast<float>(steps(gen));
      row[3] = 127 * step, row[40] = -127 * step;
    } else {
      for (std::size_t i = 0; i < C; ++i) row[i] *= step;
    }
    if (n % 10 == 1) std::fill(row + 32, row + 64, 0.0f);  // a zero block
  }
  const std::vector<float> y = matmul(m, x, nullptr);
  std::vector<std::int8_t> q(C);
  std::vector<float> scales(C / kQuantBlock);
  for (std::size_t n = 0; n < N; ++n) {
    tang::quantize_row(x.data() + n * C, C, q.data(), scales.data());
    for (std::size_t r = 0; r < C; ++r) {
      const float expected = static_cast<float>(127 * q[r]) * scales[r / kQuantBlock];
      ASSERT_EQ(y[n * C + r], expected)
          << "input " << n << ", value " << r << " = " << x[n * C + r];
    }
  }
}

TEST(Int8Weights, MultiplyCloseToFp32) {
  NEED_EXERCISE_08A();
  // Per block b: sw = max|w| / 127, sx = max|x| / 127; exercise 08a keeps each
  // weight within hw = sw (1/2 + 254 u) of w (half a step, plus rounding) and each
  // input within hx. The quantized product w'x' misses wx by at most
  //   |w - w'| |x| + |w'| |x - x'|  <=  hw |x| + (|w| + hw) hx,
  // summed over the row. What the code computes from w' and x' (integers exact,
  // then one rounding for sw sx, one per scaled lane, cols/32 + 3 additions a lane)
  // adds (cols/32 + 8) u sum (|w| + hw)(|x| + hx), and the bias 2 u of the result.
  std::mt19937 gen(7);
  for (std::size_t cols : {128, 512}) {
    const std::size_t rows = 37, N = 3, blocks = cols / kQuantBlock;
    std::vector<float> w = random_floats(gen, rows * cols, 0.05f);
    std::vector<float> x = random_floats(gen, N * cols, 1.0f);
    w[7] = 0.6f, x[cols + 3] = -8.0f;  // outliers: the rest of their blocks lose digits
    const std::vector<float> bias = random_floats(gen, rows, 0.1f);
    const std::vector<float> y =
        matmul(StoredMatrix(w.data(), rows, cols, WeightFormat::kInt8), x, bias.data());
    const auto half_steps = [&](const float* v) {  // (blocks): h of each block
      std::vector<double> h(blocks);
      for (std::size_t b = 0; b < blocks; ++b) {
        double max = 0.0;
        for (std::size_t i = 0; i < kQuantBlock; ++i)
          max = std::max(max, std::abs(static_cast<double>(v[b * kQuantBlock + i])));
        h[b] = max / 127 * (0.5 + 254 * kUnit);
      }
      return h;
    };
    double worst = 0.0, share = 0.0;
    for (std::size_t n = 0; n < N; ++n) {
      const float* xn = x.data() + n * cols;
      const std::vector<double> hx = half_steps(xn);
      for (std::size_t o = 0; o < rows; ++o) {
        const float* wo = w.data() + o * cols;
        const std::vector<double> hw = half_steps(wo);
        double exact = bias[o], quantization = 0.0, magnitude = 0.0, S = 0.0;
        for (std::size_t i = 0; i < cols; ++i) {
          const double wi = std::abs(static_cast<double>(wo[i])), xi = std::abs(xn[i]);
          const std::size_t b = i / kQuantBlock;
          exact += static_cast<double>(wo[i]) * xn[i];
          quantization += hw[b] * xi + (wi + hw[b]) * hx[b];
          magnitude += (wi + hw[b]) * (xi + hx[b]);
          S += wi * xi;
        }
        const double bound = quantization + (blocks + 8) * kUnit * magnitude +
                             2 * kUnit * (std::abs(exact) + quantization);
        const double error = std::abs(y[n * rows + o] - exact);
        ASSERT_LE(error, bound) << "row " << o << ", input " << n << ", cols " << cols;
        worst = std::max(worst, error / bound);
        share = std::max(share, bound / S);
      }
    }
    EXPECT_LT(share, 0.1) << "a bound this loose would prove little";
    std::printf(
        "int8, cols %zu: the largest error is %.3f of its bound; bounds <= %.3f of sum|wx|\n", cols,
        worst, share);
  }
}

TEST(Int8Weights, AWidthOfPartBlocksIsPaddedWithZeroWeights) {
  // an 80-wide model stopped lesson 08 and measure_weights, after 32 s of output,
  // with "int8 stores rows in blocks of 32 weights"
  NEED_EXERCISE_08A();
  std::mt19937 gen(11);
  const std::size_t rows = 5, width = 48, padded = 64, N = 3;
  const std::vector<float> w = random_floats(gen, rows * width, 1.0f);
  const std::vector<float> x = random_floats(gen, N * width, 1.0f);
  std::vector<float> w_padded(rows * padded, 0.0f), x_padded(N * padded, 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    std::copy(w.begin() + r * width, w.begin() + (r + 1) * width, w_padded.begin() + r * padded);
  for (std::size_t n = 0; n < N; ++n)
    std::copy(x.begin() + n * width, x.begin() + (n + 1) * width, x_padded.begin() + n * padded);
  const StoredMatrix ours(w.data(), rows, width, WeightFormat::kInt8);
  const StoredMatrix by_hand(w_padded.data(), rows, padded, WeightFormat::kInt8);
  std::vector<float> got(N * rows), expected(N * rows);
  ours.matmul(got.data(), x.data(), nullptr, N);
  by_hand.matmul(expected.data(), x_padded.data(), nullptr, N);
  EXPECT_EQ(got, expected) << "the same as padding the matrix and the input with zeros by hand";
  EXPECT_EQ(ours.bytes(), by_hand.bytes()) << "the padding is stored, and counted";
  const StoredMatrix one(w.data(), 1, 1, WeightFormat::kInt8);
  float out = 0.0f;
  one.matmul(&out, x.data(), nullptr, 1);
  EXPECT_NEAR(out, w[0] * x[0], std::abs(w[0] * x[0]) / 64 + 1e-6f);
}

TEST(Int8Weights, CountTheirScales) {
  NEED_EXERCISE_08A();
  const std::vector<float> w(5 * 64, 1.0f);
  EXPECT_EQ(StoredMatrix(w.data(), 5, 64, WeightFormat::kInt8).bytes(), 5 * 64 + 5 * 2 * 4u);
}

// --- the shipped model ---------------------------------------------------------

const tang::GPT* shipped_model() {
  static const std::string path = tang::default_checkpoint_path();
  static const tang::GPT* model =
      std::filesystem::exists(path) ? new tang::GPT(tang::load_checkpoint(path)) : nullptr;
  return model;
}

#define NEED_MODEL()                                                               \
  const tang::GPT* model_ptr = shipped_model();                                    \
  if (!model_ptr) GTEST_SKIP() << tang::default_checkpoint_path() << " not found"; \
  const tang::GPT& model = *model_ptr

// Batching changes the speed, never a number: in every format, each row of an
// N-row product is the same bits as that row multiplied alone (the loops take
// inputs three at a time, int8 two, and rows four at a time; N = 2, 3, 5 and 16
// leave every kind of tail).
TEST(EveryFormat, EachRowOfABatchIsThatRowAloneBitForBit) {
  if (!exercise_08a_done()) GTEST_SKIP() << "int8 needs exercise 08a";
  std::mt19937 gen(11);
  const std::size_t rows = 38, cols = 96;  // 38 = 9 x 4 + 2: a tail of rows
  const std::vector<float> w = random_floats(gen, rows * cols, 0.5f);
  for (WeightFormat f : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
    const StoredMatrix m(w.data(), rows, cols, f);
    for (std::size_t N : {2u, 3u, 5u, 16u}) {
      const std::vector<float> inp = random_floats(gen, N * cols, 1.0f);
      const std::vector<float> all = matmul(m, inp, nullptr);
      for (std::size_t n = 0; n < N; ++n) {
        const std::vector<float> one(inp.begin() + n * cols, inp.begin() + (n + 1) * cols);
        const std::vector<float> alone = matmul(m, one, nullptr);
        const std::vector<float> row(all.begin() + n * rows, all.begin() + (n + 1) * rows);
        EXPECT_TRUE(same_bits(row, alone))
            << tang::format_name(f) << ": row " << n << " of " << N;
      }
    }
  }
}

TEST(ShippedWeights, HasEveryMatrixOfADecodingStep) {
  NEED_MODEL();
  const tang::GPTConfig& config = model.config();
  const std::size_t C = config.n_embd;
  const tang::StoredWeights fp32(model, WeightFormat::kFp32);
  ASSERT_EQ(fp32.layers.size(), config.n_layer);
  EXPECT_EQ(fp32.format, WeightFormat::kFp32);
  const StoredMatrix& qkv = fp32.layers[0].qkv;
  EXPECT_EQ(qkv.rows(), 3 * C);
  EXPECT_EQ(qkv.cols(), C);
  EXPECT_EQ(fp32.layers[0].fc_proj.rows(), C);
  EXPECT_EQ(fp32.layers[0].fc_proj.cols(), 4 * C);
  EXPECT_EQ(fp32.output.rows(), config.vocab_size);
  EXPECT_EQ(fp32.output.cols(), C);
  // the output layer is the tied wte, the last layer's MLP its own fc_proj_w
  std::mt19937 gen(9);
  const std::vector<float> x = random_floats(gen, 2 * C, 1.0f);
  const std::vector<float> wte(model.weights().wte, model.weights().wte + config.vocab_size * C);
  EXPECT_TRUE(same_bits(matmul(fp32.output, x, nullptr),
                        ops_matmul(wte, x, nullptr, config.vocab_size, C)));
  const tang::LayerWeights& last = model.weights().layers.back();
  const std::vector<float> fc_proj(last.fc_proj_w, last.fc_proj_w + C * 4 * C);
  const std::vector<float> h = random_floats(gen, 2 * 4 * C, 1.0f);
  EXPECT_TRUE(same_bits(matmul(fp32.layers.back().fc_proj, h, last.fc_proj_b),
                        ops_matmul(fc_proj, h, last.fc_proj_b, C, 4 * C)));
}

TEST(ShippedWeights, BytesOfEachFormat) {
  NEED_MODEL();
  NEED_EXERCISE_08A();
  const tang::GPTConfig& config = model.config();
  const std::size_t C = config.n_embd;
  // per layer qkv 3C^2, attn_proj C^2, fc 4C^2, fc_proj 4C^2; and wte V x C
  const std::size_t weights = config.n_layer * 12 * C * C + config.vocab_size * C;
  const std::size_t fp32 = tang::StoredWeights(model, WeightFormat::kFp32).bytes();
  const std::size_t bf16 = tang::StoredWeights(model, WeightFormat::kBf16).bytes();
  const std::size_t int8 = tang::StoredWeights(model, WeightFormat::kInt8).bytes();
  EXPECT_EQ(fp32, 4 * weights);
  EXPECT_NEAR(static_cast<double>(fp32) / 1e6, 6.8, 0.05) << "the 6.8 MB of stored_weights.hpp";
  EXPECT_EQ(2 * bf16, fp32);
  EXPECT_EQ(int8, weights + weights / kQuantBlock * sizeof(float));  // 1.125 bytes a weight
  EXPECT_LT(static_cast<double>(int8), 0.3 * static_cast<double>(fp32));
  std::printf("a decoding step reads fp32 %zu, bf16 %zu, int8 %zu bytes of weights\n", fp32, bf16,
              int8);
}

}  // namespace
