// fast_test: under the hood (common/fast/), every tuned function against its plain
// counterpart on random inputs.
//
//   matmul, attention, layernorm, gelu, cross-entropy   fast:: vs ops::      (tolerance)
//   softmax                                             fast:: vs sampling   (tolerance)
//   top-k                                               fast:: vs lesson 03  EXACT
//   top-p                                               fast:: vs exercise 03's solution,
//                                                       BIT FOR BIT
//   forward                                             fast::kernels() vs kPlainKernels
//
// The tuned functions add in other orders (BLAS blocks, vector lanes, threads) and
// call glibc's vector exp/erf, so most results agree to a few units in the last
// place, not to the bit. The filters decide which characters may be written, and
// so must agree exactly. Relative error, here: max |a - b| / max |b|, b the plain one.
//
// Top-p is compared with exercise 03's reference solution (what its switch runs
// without --yours).

#include "fast/fast.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "03_topk_topp/exercise/top_p.hpp"
#include "03_topk_topp/sampler.hpp"
#include "fast/blas_cores.hpp"
#include "fast/top_k_top_p.hpp"
#include "fast/vector_math.hpp"
#include "gpt.hpp"
#include "ops.hpp"
#include "rng.hpp"
#include "sampling.hpp"
#include "tiny_golden.hpp"
#include "trace.hpp"

namespace {

using tang::TokenId;
using Floats = std::vector<float>;
using tang::testing::bit_difference;
using tang::testing::relative_error;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kTolerance = 1e-5;
// For results divided by a sum of thousands of floats added in another order.
constexpr double kSumTolerance = 1e-4;

Floats random_floats(std::size_t n, tang::Rng& rng, float scale = 1.0f) {
  Floats v(n);
  for (float& x : v) x = scale * rng.normal();
  return v;
}

// Runs the tuned functions with 2 threads whatever the machine, so that the
// split over threads is exercised; restores the setting afterwards.
class FastTest : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_before_ = omp_get_max_threads();
    omp_set_num_threads(2);
  }
  void TearDown() override { omp_set_num_threads(threads_before_); }

 private:
  int threads_before_ = 1;
};

// --- the model's operations -------------------------------------------------------

TEST_F(FastTest, MatmulAgreesWithThePlainLoops) {
  tang::Rng rng(1);
  struct Shape {
    std::size_t N, IC, OC;
  };
  // generation (one row), a prompt, training batches (split over threads), the
  // course's layers, the tied output layer, ragged sizes; then a decoding step's
  // few rows (few_rows_matmul): every count of inputs left after its tiles of 6
  // (or 2), weight rows not a multiple of 4, GPT-2 small's widths
  for (const Shape s :
       {Shape{1, 128, 384}, Shape{1, 128, 7129}, Shape{7, 128, 512}, Shape{64, 512, 128},
        Shape{131, 24, 37}, Shape{256, 128, 384}, Shape{3, 5, 2}, Shape{1, 1, 1},
        Shape{2, 128, 384}, Shape{4, 768, 36}, Shape{5, 128, 130}, Shape{13, 64, 7},
        Shape{16, 3072, 20}, Shape{32, 128, 7129}, Shape{31, 48, 9}}) {
    for (const bool with_bias : {true, false}) {
      const Floats x = random_floats(s.N * s.IC, rng), w = random_floats(s.OC * s.IC, rng, 0.1f),
                   b = random_floats(s.OC, rng);
      Floats plain(s.N * s.OC), tuned(s.N * s.OC);
      const float* bias = with_bias ? b.data() : nullptr;
      tang::ops::matmul_forward(plain.data(), x.data(), w.data(), bias, s.N, s.IC, s.OC);
      tang::fast::matmul_forward(tuned.data(), x.data(), w.data(), bias, s.N, s.IC, s.OC);
      EXPECT_LE(relative_error(tuned, plain), kTolerance)
          << "N " << s.N << " IC " << s.IC << " OC " << s.OC << " bias " << with_bias;
    }
  }
}

// The first row where `product`'s output for N rows differs, bit for bit, from the
// same row multiplied alone, for N = 1 .. most (every fifth row of each batch), on
// random (N, IC) inputs and (OC, IC) weights; "" when there is none.
// product(out, x, w, bias, N) multiplies by the weights it was handed.
template <class Product>
std::string first_row_unlike_alone(std::size_t IC, std::size_t OC, std::size_t most, tang::Rng& rng,
                                   const Product& product) {
  const Floats x = random_floats(most * IC, rng), w = random_floats(OC * IC, rng, 0.1f),
               b = random_floats(OC, rng);
  Floats alone(OC), batch(most * OC);
  for (std::size_t N = 1; N <= most; ++N) {
    product(batch.data(), x.data(), w, b.data(), N);
    for (std::size_t r = 0; r < N; r += 5) {
      product(alone.data(), x.data() + r * IC, w, b.data(), 1);
      if (!std::equal(alone.begin(), alone.end(), batch.begin() + long(r * OC)))
        return "IC " + std::to_string(IC) + ", row " + std::to_string(r) + " of " +
               std::to_string(N);
    }
  }
  return "";
}

// few_rows_matmul sums each input row alike whatever else is in the batch: a row
// alone and the same row among 1 to 32 others give the same bits, on our widths
// and GPT-2 small's (and one that is neither).
TEST(FewRowsMatmul, ARowIsSummedAlikeInEveryBatch) {
  tang::Rng rng(21);
  for (const std::size_t IC : {128u, 768u, 3072u, 1552u}) {
    constexpr std::size_t OC = 22;
    EXPECT_EQ(first_row_unlike_alone(
                  IC, OC, 32, rng,
                  [&](float* out, const float* x, const Floats& w, const float* b, std::size_t N) {
                    tang::fast::few_rows_matmul(out, x, w.data(), b, N, IC, OC);
                  }),
              "");
  }
}

// panel_matmul (weights copied into panels of output channels) agrees with the
// plain loop: every count of rows up to 64 (its tiles of 8 or 4 and what is left),
// outputs that fill no whole panel or tile of 3 panels, widths of any size.
TEST(PanelMatmul, AgreesWithThePlainLoop) {
  tang::Rng rng(23);
  struct Shape {
    std::size_t IC, OC;
  };
  for (const Shape s : {Shape{128, 384}, Shape{128, 7129}, Shape{768, 36}, Shape{5, 130},
                        Shape{3072, 20}, Shape{1, 1}, Shape{48, 9}, Shape{128, 512}}) {
    const Floats w = random_floats(s.OC * s.IC, rng, 0.1f), b = random_floats(s.OC, rng);
    const tang::fast::PanelMatrix panels(w.data(), s.OC, s.IC);
    for (const std::size_t N : {1u, 2u, 3u, 5u, 8u, 9u, 16u, 17u, 31u, 64u}) {
      const Floats x = random_floats(N * s.IC, rng);
      for (const bool with_bias : {true, false}) {
        const float* bias = with_bias ? b.data() : nullptr;
        Floats plain(N * s.OC), tuned(N * s.OC, -1.0f);
        tang::ops::matmul_forward(plain.data(), x.data(), w.data(), bias, N, s.IC, s.OC);
        tang::fast::panel_matmul(tuned.data(), x.data(), panels, bias, N);
        EXPECT_LE(relative_error(tuned, plain), kTolerance)
            << "N " << N << " IC " << s.IC << " OC " << s.OC << " bias " << with_bias;
      }
    }
  }
}

// panel_matmul sums each row alike whatever else is in the batch: a row alone and
// the same row among 1 to 64 others give the same bits.
TEST(PanelMatmul, ARowIsSummedAlikeInEveryBatch) {
  tang::Rng rng(29);
  for (const std::size_t IC : {128u, 768u, 3072u, 1552u}) {
    constexpr std::size_t OC = 70;
    EXPECT_EQ(first_row_unlike_alone(
                  IC, OC, 64, rng,
                  [&](float* out, const float* x, const Floats& w, const float* b, std::size_t N) {
                    const tang::fast::PanelMatrix panels(w.data(), OC, IC);
                    tang::fast::panel_matmul(out, x, panels, b, N);
                  }),
              "");
  }
}

// exact_matmul is the plain loop to the last bit, for every count of rows up to
// 64 (its blocks of 6 and 2, odd counts), weight rows not a multiple of 4, and
// widths that are not a multiple of its 8 lanes (the plain loop's tail).
TEST_F(FastTest, ExactMatmulIsThePlainLoopBitForBit) {
  tang::Rng rng(11);
  struct Shape {
    std::size_t IC, OC;
  };
  for (const Shape s : {Shape{128, 384}, Shape{128, 130}, Shape{512, 128}, Shape{24, 7},
                        Shape{12, 9}, Shape{768, 5}}) {
    for (std::size_t N = 1; N <= 64; ++N) {
      const bool with_bias = N % 2 == 0;
      const Floats x = random_floats(N * s.IC, rng), w = random_floats(s.OC * s.IC, rng, 0.1f),
                   b = random_floats(s.OC, rng);
      Floats plain(N * s.OC), exact(N * s.OC, 7.0f);
      const float* bias = with_bias ? b.data() : nullptr;
      tang::ops::matmul_forward(plain.data(), x.data(), w.data(), bias, N, s.IC, s.OC);
      tang::fast::exact_matmul(exact.data(), x.data(), w.data(), bias, N, s.IC, s.OC);
      std::size_t first = 0;
      while (first < plain.size() && std::memcmp(&plain[first], &exact[first], sizeof(float)) == 0)
        ++first;
      ASSERT_EQ(first, plain.size())
          << "N " << N << " IC " << s.IC << " OC " << s.OC << " bias " << with_bias << ": output "
          << first << " is " << exact[first] << ", the plain loop's " << plain[first];
    }
  }
}

TEST_F(FastTest, AttentionAgreesWithThePlainLoops) {
  tang::Rng rng(2);
  struct Shape {
    std::size_t B, T, C, NH;
  };
  for (const Shape s : {Shape{1, 1, 8, 2}, Shape{1, 16, 8, 2}, Shape{2, 33, 32, 4},
                        Shape{4, 128, 128, 4}, Shape{3, 7, 12, 3}}) {
    const Floats qkv = random_floats(s.B * s.T * 3 * s.C, rng);
    Floats plain(s.B * s.T * s.C), tuned(s.B * s.T * s.C);
    Floats plain_att(s.B * s.NH * s.T * s.T, 7.0f), tuned_att(s.B * s.NH * s.T * s.T, 7.0f);
    tang::ops::attention_forward(plain.data(), plain_att.data(), qkv.data(), s.B, s.T, s.C, s.NH);
    tang::fast::attention_forward(tuned.data(), tuned_att.data(), qkv.data(), s.B, s.T, s.C, s.NH);
    EXPECT_LE(relative_error(tuned, plain), kTolerance) << "B " << s.B << " T " << s.T;
    EXPECT_LE(relative_error(tuned_att, plain_att), kTolerance) << "B " << s.B << " T " << s.T;
    // the causal mask: nothing after position t
    for (std::size_t row = 0; row < s.B * s.NH * s.T; ++row) {
      const std::size_t t = row % s.T;
      for (std::size_t j = t + 1; j < s.T; ++j) ASSERT_EQ(tuned_att[row * s.T + j], 0.0f);
    }
  }
}

// A decoding step's attention: one query against n cached keys, in a cache whose rows
// are `stride` apart (lesson 06's: C), for head sizes the vectors divide and one they do not.
TEST(FastAttend, AgreesWithThePlainAttend) {
  tang::Rng rng(5);
  struct Shape {
    std::size_t n, C, NH, stride;
  };
  for (const Shape s : {Shape{1, 128, 4, 128}, Shape{3, 128, 4, 128}, Shape{64, 128, 4, 128},
                        Shape{127, 128, 4, 384}, Shape{9, 768, 12, 768}, Shape{5, 12, 3, 12}}) {
    const Floats q = random_floats(s.C, rng, 2.0f);
    const Floats keys = random_floats(s.n * s.stride, rng),
                 values = random_floats(s.n * s.stride, rng);
    Floats plain(s.C), tuned(s.C), plain_w(s.NH * s.n), tuned_w(s.NH * s.n);
    tang::ops::attend(plain.data(), plain_w.data(), q.data(), keys.data(), values.data(), s.stride,
                      s.n, s.C, s.NH);
    tang::fast::attend(tuned.data(), tuned_w.data(), q.data(), keys.data(), values.data(), s.stride,
                       s.n, s.C, s.NH);
    EXPECT_LE(relative_error(tuned, plain), kTolerance) << "n " << s.n << " C " << s.C;
    EXPECT_LE(relative_error(tuned_w, plain_w), kTolerance) << "n " << s.n << " C " << s.C;
  }
}

TEST_F(FastTest, LayerNormAgreesWithThePlainLoops) {
  tang::Rng rng(3);
  for (const std::size_t N : {1u, 5u, 300u}) {
    const std::size_t C = 128;
    const Floats x = random_floats(N * C, rng, 3.0f), w = random_floats(C, rng),
                 b = random_floats(C, rng);
    Floats plain(N * C), tuned(N * C), plain_mean(N), tuned_mean(N), plain_rstd(N), tuned_rstd(N);
    tang::ops::layernorm_forward(plain.data(), plain_mean.data(), plain_rstd.data(), x.data(),
                                 w.data(), b.data(), N, C);
    tang::fast::layernorm_forward(tuned.data(), tuned_mean.data(), tuned_rstd.data(), x.data(),
                                  w.data(), b.data(), N, C);
    EXPECT_LE(relative_error(tuned, plain), kTolerance) << "N " << N;
    EXPECT_LE(relative_error(tuned_mean, plain_mean), kTolerance) << "N " << N;
    EXPECT_LE(relative_error(tuned_rstd, plain_rstd), kTolerance) << "N " << N;
    // mean and rstd may be left out
    Floats without(N * C);
    tang::fast::layernorm_forward(without.data(), nullptr, nullptr, x.data(), w.data(), b.data(), N,
                                  C);
    EXPECT_EQ(bit_difference(without, tuned), "");
  }
}

TEST_F(FastTest, GeluAgreesWithThePlainLoopsBothWays) {
  tang::Rng rng(4);
  for (const std::size_t n : {1u, 17u, 3u * 4096 + 5}) {  // scalar, lanes, chunks over threads
    const Floats x = random_floats(n, rng, 3.0f), dout = random_floats(n, rng);
    Floats plain(n), tuned(n);
    tang::ops::gelu_forward(plain.data(), x.data(), n);
    tang::fast::gelu_forward(tuned.data(), x.data(), n);
    Floats plain_d(n, 0.5f), tuned_d(n, 0.5f);  // backward adds to what is there
    tang::ops::gelu_backward(plain_d.data(), x.data(), dout.data(), n);
    tang::fast::gelu_backward(tuned_d.data(), x.data(), dout.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(tuned[i], plain[i], 1e-6f * (1.0f + std::abs(plain[i]))) << "gelu at x " << x[i];
      ASSERT_NEAR(tuned_d[i], plain_d[i], 1e-6f * (1.0f + std::abs(plain_d[i])))
          << "gelu' at x " << x[i];
    }
  }
}

// The serving engine's tuned erf (fast::vector_erf, inside fast::vector_gelu):
// within 2 units in the last place of std::erf at every 64th float of
// [-10, 10], and a number's result the same alone, in the vector body or in
// the scalar tail (the engine's rows stay batch-invariant).
TEST_F(FastTest, VectorErfIsWithinTwoUlpOfStdErf) {
  const auto ordered = [](float x) {  // floats in order as integers: ulp distance
    std::int32_t i;
    std::memcpy(&i, &x, sizeof i);
    return i < 0 ? -static_cast<std::int64_t>(i & 0x7fffffff) : static_cast<std::int64_t>(i);
  };
  const std::int64_t ten = ordered(10.0f);
  std::vector<float> x, got;
  std::int64_t worst = 0;
  float worst_at = 0.0f;
  std::size_t checked = 0;
  for (std::int64_t k = -ten; k <= ten; k += 64) {
    const std::uint32_t bits =
        k < 0 ? 0x80000000u | static_cast<std::uint32_t>(-k) : static_cast<std::uint32_t>(k);
    float v;
    std::memcpy(&v, &bits, sizeof v);
    x.push_back(v);
    if (x.size() < 4099 && k + 64 <= ten) continue;  // 4099: a scalar tail after the vectors
    got.resize(x.size());
    tang::fast::vector_erf(got.data(), x.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::int64_t d = std::llabs(ordered(got[i]) - ordered(std::erf(x[i])));
      if (d > worst) {
        worst = d;
        worst_at = x[i];
      }
    }
    checked += x.size();
    x.clear();
  }
  EXPECT_LE(worst, 2) << "ulp, at x = " << worst_at;
  EXPECT_GT(checked, 30000000u);
  // alone, at every offset of a vector: the same bits
  tang::Rng rng(5);
  const Floats many = random_floats(1000, rng, 6.0f);
  Floats all(many.size());
  tang::fast::vector_gelu(all.data(), many.data(), many.size());
  for (std::size_t i = 0; i < many.size(); ++i) {
    float one;
    tang::fast::vector_gelu(&one, &many[i], 1);
    ASSERT_EQ(std::memcmp(&one, &all[i], sizeof one), 0) << "x " << many[i];
    Floats tail(many.size() - i);
    tang::fast::vector_gelu(tail.data(), many.data() + i, tail.size());
    ASSERT_EQ(std::memcmp(&tail[0], &all[i], sizeof one), 0) << "from " << i;
  }
  Floats plain(many.size());
  tang::ops::gelu_forward(plain.data(), many.data(), many.size());
  for (std::size_t i = 0; i < many.size(); ++i)
    ASSERT_NEAR(all[i], plain[i], 1e-6f * (1.0f + std::abs(plain[i]))) << "gelu at x " << many[i];
}

TEST_F(FastTest, CrossEntropyAgreesWithThePlainLoopsBothWays) {
  tang::Rng rng(5);
  for (const std::size_t N : {1u, 4u, 64u}) {
    const std::size_t V = 7129;
    const Floats logits = random_floats(N * V, rng, 4.0f);
    std::vector<TokenId> targets(N);
    for (TokenId& t : targets) t = static_cast<TokenId>(rng.below(V));
    Floats plain_losses(N), tuned_losses(N), plain_probs(N * V), tuned_probs(N * V);
    const float plain = tang::ops::crossentropy_forward(plain_losses.data(), plain_probs.data(),
                                                        logits.data(), targets.data(), N, V);
    const float tuned = tang::fast::crossentropy_forward(tuned_losses.data(), tuned_probs.data(),
                                                         logits.data(), targets.data(), N, V);
    EXPECT_NEAR(tuned, plain, kTolerance * plain) << "N " << N;
    EXPECT_LE(relative_error(tuned_losses, plain_losses), kTolerance);
    // The plain softmax adds 7,129 floats left to right, the tuned one in vector
    // lanes: their totals differ by the rounding of a long float sum (~1e-5), and
    // every probability is divided by its total.
    EXPECT_LE(relative_error(tuned_probs, plain_probs), kSumTolerance);
    Floats plain_d(N * V), tuned_d(N * V);
    tang::ops::crossentropy_backward(plain_d.data(), plain_probs.data(), targets.data(), N, V);
    tang::fast::crossentropy_backward(tuned_d.data(), tuned_probs.data(), targets.data(), N, V);
    EXPECT_LE(relative_error(tuned_d, plain_d), kSumTolerance);
  }
}

// The whole forward pass with the tuned kernels, on the tiny golden model (and its
// float64 reference) and on a random model of the course's shape, in a batch.
TEST_F(FastTest, ForwardWithTheTunedKernelsAgreesWithThePlainOne) {
  const tang::GPT& tiny = tang::testing::tiny_model();
  const auto golden = tang::testing::load_golden();
  tang::Activations a(tiny.config(), 1, tang::Keep::kEverything),
      b(tiny.config(), 1, tang::Keep::kEverything);
  const auto plain = tang::testing::copy_of(
      tang::forward(tiny.config(), tiny.weights(), golden.tokens, 1, golden.tokens.size(), a,
                    tang::kPlainKernels, tang::LogitsFor::kAllPositions));
  const auto tuned = tang::testing::copy_of(
      tang::forward(tiny.config(), tiny.weights(), golden.tokens, 1, golden.tokens.size(), b,
                    tang::fast::kernels(), tang::LogitsFor::kAllPositions));
  EXPECT_LE(relative_error(tuned, plain), kTolerance);
  EXPECT_LE(relative_error(tuned, golden.logits), kTolerance);

  const tang::GPT model = tang::testing::random_model(11);
  const auto& cfg = model.config();
  const std::size_t B = 3, T = cfg.block_size;
  tang::Rng rng(12);
  std::vector<TokenId> tokens(B * T);
  for (TokenId& t : tokens) t = static_cast<TokenId>(rng.below(cfg.vocab_size));
  tang::Activations c(cfg, B, tang::Keep::kEverything), d(cfg, B, tang::Keep::kEverything);
  const auto plain_batch = tang::testing::copy_of(tang::forward(
      cfg, model.weights(), tokens, B, T, c, tang::kPlainKernels, tang::LogitsFor::kAllPositions));
  const auto tuned_batch =
      tang::testing::copy_of(tang::forward(cfg, model.weights(), tokens, B, T, d,
                                           tang::fast::kernels(), tang::LogitsFor::kAllPositions));
  EXPECT_LE(relative_error(tuned_batch, plain_batch), 1e-4)
      << "4 layers of float32 in other orders of addition";
}

// --- softmax --------------------------------------------------------------------------

TEST(FastSoftmax, AgreesWithThePlainSoftmax) {
  tang::Rng rng(6);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = trial % 10 == 0 ? 7129 : 1 + rng.below(100);
    Floats z(n);
    for (float& x : z) x = rng.uniform() < 0.3f ? -kInf : rng.normal() * 4.0f;
    z[rng.below(n)] = 1.0f;  // at least one finite
    Floats plain = z, tuned = z;
    tang::softmax_in_place(plain);
    tang::fast::softmax_in_place(tuned);
    for (std::size_t i = 0; i < n; ++i) {
      if (z[i] == -kInf) {
        ASSERT_EQ(tuned[i], 0.0f) << "-inf gives exactly 0";
      } else if (plain[i] >= 1e-30f) {
        // exp(-78) and below are written as 0 under the hood (vector_math.hpp); the
        // totals differ by the rounding of a long float sum (see kSumTolerance)
        ASSERT_NEAR(tuned[i], plain[i], kSumTolerance * plain[i])
            << "trial " << trial << " i " << i;
      }
    }
  }
}

TEST(FastSoftmax, DifferencesBelowMinus78GiveZero) {
  // exp(-79) is about 5e-35: written as exactly 0, as for -inf (vector_math.hpp)
  Floats z(40, 0.0f);
  z[3] = -79.0f;
  z[20] = -60.0f;  // exp(-60) = 8.8e-27 stays
  tang::fast::softmax_in_place(z);
  EXPECT_EQ(z[3], 0.0f);
  EXPECT_GT(z[20], 0.0f);
  EXPECT_NEAR(z[0], 1.0f / 38, 1e-7);  // 38 zeros share it all (exp(-60) adds nothing visible)
}

// --- top-k: exactly the lesson's ------------------------------------------------------

TEST(FastTopK, KthLargestMatchesSortingForSmallAndLargeK) {
  // k <= 64 takes the heap, larger k the partial selection: both must agree with a sort.
  tang::Rng rng(7);
  Floats scratch;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 1 + rng.below(trial % 4 == 0 ? 3000 : 200);
    Floats values(n);
    for (float& x : values) x = trial % 2 ? rng.normal() : static_cast<float>(rng.below(9));
    Floats sorted = values;
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    for (const std::size_t k : {std::size_t{1}, 1 + rng.below(n), std::min<std::size_t>(n, 64),
                                std::min<std::size_t>(n, 65), n}) {
      EXPECT_EQ(tang::fast::kth_largest(values, k, scratch), sorted[k - 1])
          << "trial " << trial << " n " << n << " k " << k;
    }
  }
}

TEST(FastTopK, SameLogitsAsTheLessonsTopK) {
  tang::Rng rng(8);
  Floats scratch;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t n = 1 + rng.below(trial % 20 == 0 ? 7129 : 200);
    Floats z(n);
    const int kind = trial % 3;
    for (float& x : z) {
      if (kind == 0) x = rng.normal() * 3.0f;
      if (kind == 1) x = static_cast<float>(rng.below(5));  // ties at the border
      if (kind == 2) x = rng.uniform() < 0.4f ? -kInf : rng.normal();
    }
    const std::size_t ks[] = {0, 1, 2, 20, 64, 65, 200, n - 1, n, n + 1, 1 + rng.below(n)};
    for (const std::size_t k : ks) {
      Floats plain = z, tuned = z;
      tang::top_k_filter(plain, k);
      tang::fast::top_k_filter(tuned, k, scratch);
      ASSERT_EQ(tuned, plain) << "trial " << trial << " n " << n << " k " << k;
    }
  }
}

// --- top-p: exercise 03's rule, bit for bit --------------------------------------------

using TopP = void (*)(std::span<float>, float, std::vector<tang::fast::NucleusKey>&);

void exercise_top_p(std::span<float> p, float top_p, std::vector<tang::fast::NucleusKey>&) {
  tang::top_p_filter(p, top_p);
}

struct TopPVariant {
  const char* name;
  TopP filter;
};

void PrintTo(const TopPVariant& variant, std::ostream* os) {
  *os << variant.name;
}

// The small cases of the old lesson tests, for both: worked out on paper.
class TopPTest : public ::testing::TestWithParam<TopPVariant> {
 protected:
  Floats run(Floats p, float top_p) {
    std::vector<tang::fast::NucleusKey> keys;
    GetParam().filter(p, top_p, keys);
    return p;
  }
  static std::vector<TokenId> support(const Floats& p) {
    std::vector<TokenId> ids;
    for (std::size_t i = 0; i < p.size(); ++i)
      if (p[i] != 0.0f) ids.push_back(static_cast<TokenId>(i));
    return ids;
  }
};

TEST_P(TopPTest, KeepsTheSmallestSetReachingP) {
  const Floats p = {0.1f, 0.2f, 0.3f, 0.4f};
  EXPECT_EQ(support(run(p, 0.4f)), (std::vector<TokenId>{3}));
  EXPECT_EQ(support(run(p, 0.3f)), (std::vector<TokenId>{3}));
  EXPECT_EQ(support(run(p, 0.5f)), (std::vector<TokenId>{2, 3}));
  EXPECT_EQ(support(run(p, 0.7f)), (std::vector<TokenId>{2, 3}));
  EXPECT_EQ(support(run(p, 0.71f)), (std::vector<TokenId>{1, 2, 3}));
  EXPECT_EQ(support(run(p, 0.95f)), (std::vector<TokenId>{0, 1, 2, 3}));
  EXPECT_EQ(run(p, 1.0f), p) << "p = 1 is off";
}

TEST_P(TopPTest, RenormalisesWhatIsKept) {
  const Floats p = {0.1f, 0.2f, 0.3f, 0.4f};
  const auto two = run(p, 0.5f);
  EXPECT_EQ(two[0], 0.0f);
  EXPECT_EQ(two[1], 0.0f);
  EXPECT_NEAR(two[2], 3.0f / 7, 1e-6);
  EXPECT_NEAR(two[3], 4.0f / 7, 1e-6);
  EXPECT_FLOAT_EQ(run(p, 0.4f)[3], 1.0f);
}

TEST_P(TopPTest, ReachingPExactlyCounts) {
  // Powers of two: 0.5 + 0.25 is exactly 0.75, so p = 0.75 is reached by two.
  const Floats p = {0.125f, 0.125f, 0.25f, 0.5f};
  EXPECT_EQ(support(run(p, 0.5f)), (std::vector<TokenId>{3}));
  EXPECT_EQ(support(run(p, 0.75f)), (std::vector<TokenId>{2, 3}));
  EXPECT_EQ(support(run(p, std::nextafter(0.75f, 1.0f))), (std::vector<TokenId>{0, 2, 3}))
      << "a tie at the border is broken by id: of the two 0.125s only id 0";
  EXPECT_EQ(run(p, 0.875f)[0], 0.125f / 0.875f);
  EXPECT_EQ(support(run(p, std::nextafter(0.875f, 1.0f))), (std::vector<TokenId>{0, 1, 2, 3}));
}

TEST_P(TopPTest, TinyPKeepsTheMostLikelyOnly) {
  EXPECT_EQ(support(run({0.1f, 0.2f, 0.3f, 0.4f}, 1e-6f)), (std::vector<TokenId>{3}));
  EXPECT_EQ(support(run({0.25f, 0.25f, 0.25f, 0.25f}, 0.1f)), (std::vector<TokenId>{0}));
  EXPECT_EQ(support(run({0.25f, 0.25f, 0.25f, 0.25f}, 0.5f)), (std::vector<TokenId>{0, 1}));
}

TEST_P(TopPTest, ZerosFromTopKStayZero) {
  const auto kept = run({0.0f, 0.5f, 0.0f, 0.3f, 0.2f, 0.0f}, 0.9f);
  EXPECT_EQ(support(kept), (std::vector<TokenId>{1, 3, 4}));
}

INSTANTIATE_TEST_SUITE_P(BothVersions, TopPTest,
                         ::testing::Values(TopPVariant{"exercise03", exercise_top_p},
                                           TopPVariant{"fast", tang::fast::top_p_filter}),
                         [](const auto& info) { return std::string(info.param.name); });

// Runs both and requires the same bits; on failure says where.
void expect_same_top_p(const Floats& probabilities, float p,
                       std::vector<tang::fast::NucleusKey>& keys, const std::string& what) {
  Floats plain = probabilities, tuned = probabilities;
  tang::top_p_filter(plain, p);
  tang::fast::top_p_filter(tuned, p, keys);
  const std::string difference = bit_difference(tuned, plain);
  std::ostringstream shown_p;
  shown_p.precision(9);
  shown_p << p;
  ASSERT_EQ(difference, "") << what << ", p = " << shown_p.str() << " (n " << probabilities.size()
                            << "): fast (first) vs exercise 03 (second)";
}

TEST(FastTopP, SameBitsAsExercise03OnRandomDistributions) {
  tang::Rng rng(2024);
  std::vector<tang::fast::NucleusKey> keys;  // reused, as sampling does
  for (int trial = 0; trial < 4000; ++trial) {
    const std::size_t n = 1 + rng.below(trial % 10 == 0 ? 7129 : 300);
    Floats z(n);
    const int kind = trial % 6;
    for (float& x : z) {
      if (kind == 0) x = rng.normal() * 3.0f;                          // peaked
      if (kind == 1) x = rng.normal() * 0.01f;                         // nearly flat
      if (kind == 2) x = static_cast<float>(rng.below(4));             // many exact ties
      if (kind == 3) x = rng.uniform() < 0.5f ? -kInf : rng.normal();  // zeros (after top-k)
      if (kind == 4) x = 0.0f;                                         // flat
      if (kind == 5) x = rng.normal() * 12.0f;                         // a long tail of tiny ones
    }
    if (kind == 3) z[rng.below(n)] = 0.0f;  // at least one finite
    tang::softmax_in_place(z);
    const int which = trial % 8;
    float p = which == 0   ? 1e-6f * (1.0f + rng.uniform())
              : which == 1 ? 1.0f - rng.uniform() * 1e-3f
              : which == 2 ? std::nextafter(1.0f, 0.0f)
              : which == 3 ? 1.0f - 1e-6f
                           : rng.uniform();
    p = std::max(p, 1e-6f);
    expect_same_top_p(z, p, keys, "random distribution #" + std::to_string(trial));
  }
}

TEST(FastTopP, SameBitsAtTheLessonsSettings) {
  // What lesson 03 runs: T in (0.3 .. 2), top-k 0 or 20, p 0.9, on logits shaped like
  // the real model's (a few large, a long tail), 7129 characters.
  tang::Rng rng(3);
  std::vector<tang::fast::NucleusKey> keys;
  Floats scratch;
  for (int trial = 0; trial < 300; ++trial) {
    Floats z(7129);
    for (float& x : z) x = rng.normal() * 2.0f - 4.0f;
    for (int i = 0; i < 10; ++i) z[rng.below(z.size())] = 4.0f + 3.0f * rng.uniform();
    const float t = 0.3f + 1.7f * rng.uniform();
    for (float& x : z) x /= t;
    if (trial % 2) tang::top_k_filter(z, 20);
    tang::softmax_in_place(z);
    for (const float p : {0.5f, 0.9f, 0.95f, 0.99f}) {
      expect_same_top_p(z, p, keys, "lesson-like distribution #" + std::to_string(trial));
    }
  }
}

// Ties of 17 and more equal probabilities right at the nucleus's edge.
TEST(FastTopP, SameBitsWithManyTiesAtTheEdge) {
  tang::Rng rng(17);
  std::vector<tang::fast::NucleusKey> keys;
  for (const std::size_t ties : {17u, 33u, 100u, 1000u}) {
    for (int trial = 0; trial < 50; ++trial) {
      const std::size_t n = ties + 200;
      Floats values;
      for (int i = 0; i < 5; ++i) values.push_back(0.05f + 0.01f * static_cast<float>(i));
      for (std::size_t i = 0; i < ties; ++i) values.push_back(0.002f);
      while (values.size() < n) values.push_back(0.0005f * rng.uniform());
      for (std::size_t i = n - 1; i > 0; --i) std::swap(values[i], values[rng.below(i + 1)]);
      float total = 0.0f;
      for (float v : values) total += v;
      for (float& v : values) v /= total;
      const float large = 0.35f / total, tie = 0.002f / total;
      const float p = large + tie * (static_cast<float>(rng.below(ties)) + rng.uniform());
      expect_same_top_p(values, p, keys,
                        std::to_string(ties) + " ties at the edge, trial " + std::to_string(trial));
    }
  }
}

// --- the whole sampling step --------------------------------------------------------------

TEST(FastSampleNext, DrawsWhatTheLessonsSamplerDraws) {
  // Same filters, same coin; the softmax differs in the last bits, so a coin that
  // falls within a rounding error of a border may go the other way: allow 1 in 500.
  tang::Rng make(9);
  tang::fast::SamplerScratch scratch;
  int draws = 0, disagreements = 0;
  for (int trial = 0; trial < 500; ++trial) {
    Floats logits(trial % 5 == 0 ? 7129 : 50);
    for (float& x : logits) x = make.normal() * 2.0f;
    for (const tang::SamplingSettings s : {tang::SamplingSettings{1.0f, 0, 1.0f},
                                           {0.8f, 20, 1.0f},
                                           {1.2f, 20, 0.9f},
                                           {0.0f, 5, 0.5f}}) {
      Floats a = logits, b = logits;
      tang::Rng r1(static_cast<std::uint64_t>(trial)), r2(static_cast<std::uint64_t>(trial));
      const TokenId plain = tang::sample_next(a, s, r1);
      const TokenId tuned = tang::fast::sample_next(b, s, r2, scratch);
      ++draws;
      disagreements += plain != tuned;
      ASSERT_EQ(r1.state(), r2.state()) << "one coin each (none when greedy)";
      if (s.temperature == 0.0f) {
        ASSERT_EQ(plain, tuned) << "greedy is exact";
      }
    }
  }
  EXPECT_LE(disagreements * 500, draws) << disagreements << " of " << draws << " draws differ";
}

TEST(FastSampleNext, ASmallTopKDrawsExactlyTheLessonsCharacterAndLeavesTheScaledLogits) {
  // Two passes (the k largest, then every logit at the temperature): the same cut,
  // the same softmax of the kept ones, so the same character every time; and the
  // logits left behind are the ones lesson 03's --trace starts its softmax from.
  tang::Rng make(21);
  tang::fast::SamplerScratch scratch;
  for (int trial = 0; trial < 300; ++trial) {
    Floats logits(7129);
    for (float& x : logits) x = make.normal() * 3.0f;
    if (trial % 3 == 0)  // ties at the border of the top-k
      for (std::size_t i = 0; i < 40; ++i) logits[i * 97] = 9.5f;
    const tang::SamplingSettings s{trial % 2 == 0 ? 0.8f : 1.7f,
                                   static_cast<std::size_t>(1 + trial % 64), 0.95f};
    Floats a = logits, b = logits;
    tang::Rng r1(static_cast<std::uint64_t>(trial)), r2(static_cast<std::uint64_t>(trial));
    tang::StepRecord record;
    ASSERT_EQ(tang::sample_next(a, s, r1, &record), tang::fast::sample_next(b, s, r2, scratch))
        << "trial " << trial;
    tang::softmax_in_place(b);
    ASSERT_EQ(0, std::memcmp(b.data(), record.before.data(), b.size() * sizeof(float)))
        << "trial " << trial << ": the scaled logits left behind are not --trace's";
  }
}

}  // namespace

namespace {

// OPENBLAS_CORETYPE=SkylakeX, the value the docs once named, died with SIGILL on
// an AVX2-only CPU: ensure_fast_blas now replaces a value the CPU cannot run.
TEST(BlasCores, AnAvx512KernelIsRefusedOnAnAvx2OnlyCpu) {
  EXPECT_FALSE(tang::blas_core_runs_on("SkylakeX", /*has_avx512=*/false, /*has_avx2=*/true));
  EXPECT_FALSE(tang::blas_core_runs_on("cooperlake", false, true));
  EXPECT_TRUE(tang::blas_core_runs_on("Haswell", false, true));
  EXPECT_FALSE(tang::blas_core_runs_on("Haswell", false, false));
  EXPECT_TRUE(tang::blas_core_runs_on("SkylakeX", true, true));
  EXPECT_TRUE(tang::blas_core_runs_on("Prescott", false, false));
}

}  // namespace
