// sampling_test: every sampling and constraint function of lessons 01-05 on tiny
// hand-made distributions, the acrostic on a tiny model, and the Decoder with and
// without its KV cache (also past the context, where the window slides).
//
// The hand-made numbers are chosen so that a reader can check every expectation
// with pencil and paper; where a boundary matters (top-p reaching p exactly) the
// numbers are powers of two, so float rounding cannot blur it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <ostream>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "acrostic.hpp"
#include "checkpoint.hpp"
#include "decoder.hpp"
#include "errors.hpp"
#include "gpt.hpp"
#include "lesson_options.hpp"
#include "logit_mask.hpp"
#include "next_char.hpp"
#include "poem_writer.hpp"
#include "rng.hpp"
#include "temperature.hpp"
#include "top_k_top_p.hpp"
#include "utf8.hpp"

namespace {

using tang::TokenId;

constexpr float kInf = std::numeric_limits<float>::infinity();
const std::string kTinyModel = std::string(TANG_TESTS_DIR) + "/golden/tiny_model.safetensors";

// The ids with a non-zero probability (or a finite logit), in id order.
std::vector<TokenId> support(std::span<const float> values, bool logits) {
  std::vector<TokenId> ids;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (logits ? values[i] != -kInf : values[i] != 0.0f) ids.push_back(static_cast<TokenId>(i));
  }
  return ids;
}

float sum_of(std::span<const float> values) {
  return static_cast<float>(std::accumulate(values.begin(), values.end(), 0.0));
}

std::vector<float> log_of(std::vector<float> p) {
  for (float& x : p) x = std::log(x);
  return p;
}

// --- softmax, most_likely (lesson 01) ----------------------------------------

TEST(Softmax, GivesProbabilitiesInTheRatioOfExpLogits) {
  std::vector<float> z = {0.0f, std::log(2.0f), std::log(5.0f)};
  tang::softmax_in_place(z);
  EXPECT_NEAR(z[0], 1.0f / 8, 1e-6);
  EXPECT_NEAR(z[1], 2.0f / 8, 1e-6);
  EXPECT_NEAR(z[2], 5.0f / 8, 1e-6);
}

TEST(Softmax, IsStableForHugeLogitsAndShiftInvariant) {
  std::vector<float> a = {1000.0f, 1001.0f, 999.0f};
  std::vector<float> b = {0.0f, 1.0f, -1.0f};
  tang::softmax_in_place(a);
  tang::softmax_in_place(b);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(std::isfinite(a[i]));
    EXPECT_NEAR(a[i], b[i], 1e-6);
  }
  EXPECT_NEAR(sum_of(a), 1.0f, 1e-6);
}

TEST(Softmax, MinusInfinityGetsExactlyZero) {
  std::vector<float> z = {-kInf, 0.0f, -kInf, std::log(3.0f), -kInf};
  tang::softmax_in_place(z);
  EXPECT_EQ(z[0], 0.0f);
  EXPECT_EQ(z[2], 0.0f);
  EXPECT_EQ(z[4], 0.0f);
  EXPECT_NEAR(z[1], 0.25f, 1e-6);
  EXPECT_NEAR(z[3], 0.75f, 1e-6);
  for (float p : z) EXPECT_FALSE(std::isnan(p));
}

TEST(Softmax, OneFiniteLogitGetsEverything) {
  std::vector<float> z = {-kInf, -kInf, 7.5f};
  tang::softmax_in_place(z);
  EXPECT_EQ(z, (std::vector<float>{0.0f, 0.0f, 1.0f}));
}

TEST(Softmax, LongVectorsMatchADoubleReference) {
  // Long enough for the vector loops of vector_math.hpp (the tests above only
  // reach their scalar remainders), with -inf entries as top-k leaves them.
  tang::Rng rng(77);
  for (const std::size_t n : {17u, 100u, 7129u}) {
    std::vector<float> z(n);
    for (float& x : z) x = rng.uniform() < 0.3f ? -kInf : rng.normal() * 4.0f;
    z[n / 2] = 1.0f;  // at least one finite
    std::vector<double> expected(n);
    const double max = *std::max_element(z.begin(), z.end());
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) total += (expected[i] = std::exp(z[i] - max));
    tang::softmax_in_place(z);
    for (std::size_t i = 0; i < n; ++i) {
      const double want = expected[i] / total;
      if (want == 0.0) {
        EXPECT_EQ(z[i], 0.0f) << "n " << n << " i " << i;
      } else {
        // relative 1e-5: float rounds z - max, and exp magnifies that by |z - max|
        EXPECT_NEAR(z[i], want, 1e-5 * want + 1e-30) << "n " << n << " i " << i;
      }
    }
  }
}

TEST(Softmax, DifferencesBelowMinus78GiveZero) {
  // exp(-79) is about 5e-35: written as exactly 0, as for -inf (vector_math.hpp)
  std::vector<float> z(40, 0.0f);
  z[3] = -79.0f;
  z[20] = -60.0f;  // exp(-60) = 8.8e-27 stays
  tang::softmax_in_place(z);
  EXPECT_EQ(z[3], 0.0f);
  EXPECT_GT(z[20], 0.0f);
  EXPECT_NEAR(z[0], 1.0f / 38, 1e-7);  // 38 zeros share it all (exp(-60) adds nothing visible)
}

TEST(MostLikely, OrdersByProbabilityThenBySmallerId) {
  const std::vector<float> p = {0.1f, 0.4f, 0.05f, 0.4f, 0.3f, 0.05f};
  const auto top = tang::most_likely(p, 4);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].id, 1);
  EXPECT_EQ(top[1].id, 3);  // tie with id 1: smaller id first
  EXPECT_EQ(top[2].id, 4);
  EXPECT_EQ(top[3].id, 0);
  EXPECT_FLOAT_EQ(top[0].probability, 0.4f);
  EXPECT_FLOAT_EQ(top[2].probability, 0.3f);
  const auto all = tang::most_likely(p, 100);  // more than there are: all of them
  ASSERT_EQ(all.size(), p.size());
  EXPECT_EQ(all[4].id, 2);  // 0.05 tie: id 2 before id 5
  EXPECT_EQ(all[5].id, 5);
  EXPECT_TRUE(tang::most_likely(p, 0).empty());
}

// --- temperature, argmax, sample_from (lesson 02) ------------------------------

TEST(Temperature, DividesEveryLogit) {
  std::vector<float> z = {2.0f, -4.0f, 0.0f, -kInf};
  tang::apply_temperature(z, 2.0f);
  EXPECT_EQ(z, (std::vector<float>{1.0f, -2.0f, 0.0f, -kInf}));
  tang::apply_temperature(z, 0.5f);
  EXPECT_EQ(z, (std::vector<float>{2.0f, -4.0f, 0.0f, -kInf}));
}

TEST(Temperature, LowSharpensHighFlattens) {
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  auto at = [&](float t) {
    std::vector<float> z = logits;
    tang::apply_temperature(z, t);
    tang::softmax_in_place(z);
    return z;
  };
  EXPECT_GT(at(0.3f)[2], at(1.0f)[2]);
  EXPECT_LT(at(1.5f)[2], at(1.0f)[2]);
  EXPECT_GT(at(1.5f)[0], at(1.0f)[0]);
}

TEST(Argmax, FirstOfTheLargest) {
  EXPECT_EQ(tang::argmax(std::vector<float>{1.0f, 3.0f, 3.0f, 2.0f}), 1);
  EXPECT_EQ(tang::argmax(std::vector<float>{-kInf, -5.0f, -kInf}), 1);
  EXPECT_EQ(tang::argmax(std::vector<float>{9.0f}), 0);
}

TEST(SampleFrom, CoinFallsIntoRunningTotals) {
  const std::vector<float> p = {0.1f, 0.2f, 0.3f, 0.4f};
  EXPECT_EQ(tang::sample_from(p, 0.0f), 0);
  EXPECT_EQ(tang::sample_from(p, 0.05f), 0);
  EXPECT_EQ(tang::sample_from(p, 0.1f), 1);  // the total must EXCEED the coin
  EXPECT_EQ(tang::sample_from(p, 0.25f), 1);
  EXPECT_EQ(tang::sample_from(p, 0.35f), 2);
  EXPECT_EQ(tang::sample_from(p, 0.65f), 3);
  EXPECT_EQ(tang::sample_from(p, 0.9999f), 3);
  EXPECT_EQ(tang::sample_from(p, std::nextafter(1.0f, 0.0f)), 3);
}

TEST(SampleFrom, ExactBoundariesWithPowersOfTwo) {
  const std::vector<float> p = {0.25f, 0.25f, 0.5f};
  EXPECT_EQ(tang::sample_from(p, std::nextafter(0.25f, 0.0f)), 0);
  EXPECT_EQ(tang::sample_from(p, 0.25f), 1);
  EXPECT_EQ(tang::sample_from(p, std::nextafter(0.5f, 0.0f)), 1);
  EXPECT_EQ(tang::sample_from(p, 0.5f), 2);
}

TEST(SampleFrom, NeverPicksAZeroProbabilityCharacter) {
  const std::vector<float> p = {0.0f, 0.5f, 0.0f, 0.0f, 0.5f, 0.0f};
  for (float coin = 0.0f; coin < 1.0f; coin += 1.0f / 64) {
    const TokenId id = tang::sample_from(p, coin);
    EXPECT_TRUE(id == 1 || id == 4) << "coin " << coin << " gave id " << id;
  }
  EXPECT_EQ(tang::sample_from(p, 0.0f), 1);
  EXPECT_EQ(tang::sample_from(p, 0.5f), 4);
}

TEST(SampleFrom, RoundingShortTotalGivesTheLastNonZero) {
  // Adds up to 0.9, not 1: a coin above the total must still pick a possible
  // character, the last one that has probability, never the zeros after it.
  const std::vector<float> p = {0.3f, 0.3f, 0.3f, 0.0f, 0.0f};
  EXPECT_EQ(tang::sample_from(p, 0.95f), 2);
  EXPECT_EQ(tang::sample_from(p, 0.9999f), 2);
  const std::vector<float> q = {0.0f, 0.6f, 0.0f, 0.3999f, 0.0f};
  EXPECT_EQ(tang::sample_from(q, 0.99995f), 3);
}

TEST(SampleWithTemperature, ZeroIsGreedy) {
  std::vector<float> z = {0.5f, 2.0f, 1.9f, -kInf, 2.0f};
  tang::Rng rng(7);
  const std::uint64_t before = rng.state();
  EXPECT_EQ(tang::sample_with_temperature(z, 0.0f, rng), 1);  // first of the largest
  EXPECT_EQ(rng.state(), before) << "greedy draws no random number";
}

TEST(SampleWithTemperature, IsSoftmaxThenOneCoin) {
  const std::vector<float> logits = {0.3f, -1.0f, 2.0f, 0.7f, -kInf, 1.1f};
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    for (float t : {0.3f, 1.0f, 1.5f}) {
      std::vector<float> z = logits, expected = logits;
      tang::Rng rng(seed), copy(seed);
      const TokenId got = tang::sample_with_temperature(z, t, rng);
      tang::apply_temperature(expected, t);
      tang::softmax_in_place(expected);
      EXPECT_EQ(got, tang::sample_from(expected, copy.uniform())) << "seed " << seed << " T " << t;
      EXPECT_NE(got, 4) << "a -inf logit was drawn";
    }
  }
}

TEST(SampleWithTemperature, FrequenciesFollowTheProbabilities) {
  const std::vector<float> p = {0.1f, 0.2f, 0.3f, 0.4f};
  const auto logits = log_of(p);
  std::vector<int> count(4, 0);
  tang::Rng rng(123);
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    std::vector<float> z = logits;
    ++count[static_cast<std::size_t>(tang::sample_with_temperature(z, 1.0f, rng))];
  }
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(static_cast<double>(count[i]) / n, p[i], 0.01) << "id " << i;
  }
}

// --- top-k (lesson 03) ----------------------------------------------------------

std::vector<float> top_k(std::vector<float> z, std::size_t k) {
  std::vector<float> scratch;
  tang::top_k_filter(z, k, scratch);
  return z;
}

TEST(TopK, KeepsTheKLargestLogits) {
  const std::vector<float> z = {0.1f, 0.2f, 0.3f, 0.4f};
  EXPECT_EQ(top_k(z, 1), (std::vector<float>{-kInf, -kInf, -kInf, 0.4f}));
  EXPECT_EQ(top_k(z, 2), (std::vector<float>{-kInf, -kInf, 0.3f, 0.4f}));
  EXPECT_EQ(top_k(z, 3), (std::vector<float>{-kInf, 0.2f, 0.3f, 0.4f}));
  EXPECT_EQ(top_k(z, 4), z);
  EXPECT_EQ(top_k(z, 5), z);
  EXPECT_EQ(top_k(z, 0), z) << "k = 0 means off";
  const std::vector<float> shuffled = {0.3f, 0.1f, 0.4f, 0.2f};
  EXPECT_EQ(top_k(shuffled, 2), (std::vector<float>{0.3f, -kInf, 0.4f, -kInf}));
}

TEST(TopK, TiesAtTheBorderAreKept) {
  EXPECT_EQ(top_k({1.0f, 3.0f, 3.0f, 2.0f}, 1), (std::vector<float>{-kInf, 3.0f, 3.0f, -kInf}));
  EXPECT_EQ(top_k({1.0f, 2.0f, 2.0f, 3.0f}, 2), (std::vector<float>{-kInf, 2.0f, 2.0f, 3.0f}));
  EXPECT_EQ(top_k({5.0f, 5.0f, 5.0f}, 1), (std::vector<float>{5.0f, 5.0f, 5.0f}));
}

TEST(TopK, MatchesSortingOnRandomLogits) {
  tang::Rng rng(99);
  std::vector<float> scratch;
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng.below(60);
    std::vector<float> z(n);
    for (float& x : z) x = static_cast<float>(rng.below(20)) * 0.5f;  // many ties
    const std::size_t k = rng.below(n + 2);
    std::vector<float> got = z;
    tang::top_k_filter(got, k, scratch);
    std::vector<float> sorted = z;
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    for (std::size_t i = 0; i < n; ++i) {
      const bool keep = k == 0 || k >= n || z[i] >= sorted[k - 1];
      EXPECT_EQ(got[i], keep ? z[i] : -kInf) << "trial " << trial << " k " << k << " i " << i;
    }
  }
}

TEST(KthLargest, MatchesSortingForSmallAndLargeK) {
  // k <= 64 takes the heap, larger k the partial selection: both must agree with a sort.
  tang::Rng rng(7);
  std::vector<float> scratch;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 1 + rng.below(trial % 4 == 0 ? 3000 : 200);
    std::vector<float> values(n);
    for (float& x : values)
      x = trial % 2 ? rng.normal() : static_cast<float>(rng.below(9));  // ties
    std::vector<float> sorted = values;
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    for (const std::size_t k : {std::size_t{1}, 1 + rng.below(n), std::min<std::size_t>(n, 64),
                                std::min<std::size_t>(n, 65), n}) {
      EXPECT_EQ(tang::kth_largest(values, k, scratch), sorted[k - 1])
          << "trial " << trial << " n " << n << " k " << k;
    }
  }
}

// --- top-p (lesson 03), both variants -------------------------------------------

using TopP = void (*)(std::span<float>, float, std::vector<tang::NucleusKey>&);

struct TopPVariant {
  const char* name;
  TopP filter;
};

void PrintTo(const TopPVariant& variant, std::ostream* os) {
  *os << variant.name;
}

class TopPTest : public ::testing::TestWithParam<TopPVariant> {
 protected:
  std::vector<float> run(std::vector<float> p, float top_p) {
    std::vector<tang::NucleusKey> keys;
    GetParam().filter(p, top_p, keys);
    return p;
  }
};

TEST_P(TopPTest, KeepsTheSmallestSetReachingP) {
  const std::vector<float> p = {0.1f, 0.2f, 0.3f, 0.4f};
  EXPECT_EQ(support(run(p, 0.4f), false), (std::vector<TokenId>{3}));
  EXPECT_EQ(support(run(p, 0.3f), false), (std::vector<TokenId>{3}));
  EXPECT_EQ(support(run(p, 0.5f), false), (std::vector<TokenId>{2, 3}));
  EXPECT_EQ(support(run(p, 0.7f), false), (std::vector<TokenId>{2, 3}));
  EXPECT_EQ(support(run(p, 0.71f), false), (std::vector<TokenId>{1, 2, 3}));
  EXPECT_EQ(support(run(p, 0.95f), false), (std::vector<TokenId>{0, 1, 2, 3}));
  EXPECT_EQ(run(p, 1.0f), p) << "p = 1 is off";
}

TEST_P(TopPTest, RenormalisesWhatIsKept) {
  const std::vector<float> p = {0.1f, 0.2f, 0.3f, 0.4f};
  const auto two = run(p, 0.5f);
  EXPECT_EQ(two[0], 0.0f);
  EXPECT_EQ(two[1], 0.0f);
  EXPECT_NEAR(two[2], 3.0f / 7, 1e-6);
  EXPECT_NEAR(two[3], 4.0f / 7, 1e-6);
  const auto one = run(p, 0.4f);
  EXPECT_FLOAT_EQ(one[3], 1.0f);
  const auto three = run(p, 0.71f);
  EXPECT_NEAR(three[1], 2.0f / 9, 1e-6);
  EXPECT_NEAR(sum_of(three), 1.0f, 1e-6);
}

TEST_P(TopPTest, ReachingPExactlyCounts) {
  // Powers of two: 0.5 + 0.25 is exactly 0.75, so p = 0.75 is reached by two.
  const std::vector<float> p = {0.125f, 0.125f, 0.25f, 0.5f};
  EXPECT_EQ(support(run(p, 0.5f), false), (std::vector<TokenId>{3}));
  EXPECT_EQ(support(run(p, 0.75f), false), (std::vector<TokenId>{2, 3}));
  EXPECT_EQ(support(run(p, std::nextafter(0.75f, 1.0f)), false), (std::vector<TokenId>{0, 2, 3}))
      << "a tie at the border is broken by id: of the two 0.125s only id 0";
  EXPECT_EQ(support(run(p, 0.875f), false), (std::vector<TokenId>{0, 2, 3}))
      << "0.5 + 0.25 + 0.125 reaches 0.875 exactly";
  EXPECT_EQ(run(p, 0.875f)[0], 0.125f / 0.875f);
  EXPECT_EQ(support(run(p, std::nextafter(0.875f, 1.0f)), false),
            (std::vector<TokenId>{0, 1, 2, 3}));
}

TEST_P(TopPTest, TinyPKeepsTheMostLikelyOnly) {
  EXPECT_EQ(support(run({0.1f, 0.2f, 0.3f, 0.4f}, 1e-6f), false), (std::vector<TokenId>{3}));
  // A flat distribution: every candidate is equally likely; the smallest id wins.
  EXPECT_EQ(support(run({0.25f, 0.25f, 0.25f, 0.25f}, 0.1f), false), (std::vector<TokenId>{0}));
  EXPECT_EQ(support(run({0.25f, 0.25f, 0.25f, 0.25f}, 0.5f), false), (std::vector<TokenId>{0, 1}));
}

TEST_P(TopPTest, ZerosFromTopKStayZero) {
  const std::vector<float> p = {0.0f, 0.5f, 0.0f, 0.3f, 0.2f, 0.0f};
  const auto kept = run(p, 0.9f);
  EXPECT_EQ(support(kept, false), (std::vector<TokenId>{1, 3, 4}));
  EXPECT_NEAR(sum_of(kept), 1.0f, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(BothVariants, TopPTest,
                         ::testing::Values(TopPVariant{"sorted", tang::top_p_filter},
                                           TopPVariant{"cutoff", tang::top_p_filter_with_cutoff}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(TopP, BothVariantsAgreeOnRandomDistributions) {
  tang::Rng rng(2024);
  std::vector<tang::NucleusKey> keys_a, keys_b;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = 1 + rng.below(trial % 10 == 0 ? 3000 : 40);
    std::vector<float> logits(n);
    const int kind = trial % 4;
    for (float& z : logits) {
      if (kind == 0) z = rng.normal() * 3.0f;                          // peaked
      if (kind == 1) z = rng.normal() * 0.1f;                          // nearly flat
      if (kind == 2) z = static_cast<float>(rng.below(4));             // many exact ties
      if (kind == 3) z = rng.uniform() < 0.5f ? -kInf : rng.normal();  // zeros (after top-k)
    }
    if (kind == 3) logits[rng.below(n)] = 0.0f;  // at least one finite
    tang::softmax_in_place(logits);
    const float p = trial % 7 == 0 ? 1.0f - rng.uniform() * 1e-3f : rng.uniform();
    std::vector<float> a = logits, b = logits;
    tang::top_p_filter(a, p, keys_a);
    tang::top_p_filter_with_cutoff(b, p, keys_b);
    ASSERT_EQ(a, b) << "trial " << trial << " n " << n << " p " << p;
    ASSERT_FALSE(support(a, false).empty());
    ASSERT_NEAR(sum_of(a), 1.0f, 1e-4)
        << "trial " << trial;  // float renormalisation over up to 3000
  }
}

// --- the full sampling step -------------------------------------------------------

TEST(SampleNext, ZeroTemperatureIsGreedyWhateverTheFilters) {
  tang::SamplerScratch scratch;
  tang::Rng rng(5);
  std::vector<float> z = {0.1f, 0.9f, 0.3f, 0.9f};
  EXPECT_EQ(tang::sample_next(z, {0.0f, 3, 0.5f}, rng, scratch), 1);
}

TEST(SampleNext, IsTemperatureThenTopKThenSoftmaxThenTopP) {
  const std::vector<float> logits = {1.2f, -0.3f, 0.8f, 2.1f, 0.0f, -kInf, 1.9f, 0.4f};
  tang::SamplerScratch scratch;
  std::vector<float> scratch_values;
  std::vector<tang::NucleusKey> scratch_keys;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    for (const tang::SamplingSettings s : {tang::SamplingSettings{1.0f, 0, 1.0f},
                                           {1.5f, 3, 1.0f},
                                           {0.7f, 0, 0.6f},
                                           {2.0f, 5, 0.8f}}) {
      std::vector<float> got = logits, expected = logits;
      tang::Rng rng(seed), copy(seed);
      const TokenId id = tang::sample_next(got, s, rng, scratch);
      tang::apply_temperature(expected, s.temperature);
      tang::top_k_filter(expected, s.top_k, scratch_values);
      tang::softmax_in_place(expected);
      tang::top_p_filter(expected, s.top_p, scratch_keys);
      EXPECT_EQ(id, tang::sample_from(expected, copy.uniform())) << "seed " << seed;
    }
  }
}

TEST(SampleNext, TopPSeesTheTemperedDistribution) {
  // At T = 1 these are 0.4/0.3/0.2/0.1 and p = 0.7 keeps two. At T = 100 they are
  // nearly flat and p = 0.7 needs three: top-p must come after the temperature.
  const auto logits = log_of({0.4f, 0.3f, 0.2f, 0.1f});
  tang::SamplerScratch scratch;
  std::set<TokenId> seen;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    std::vector<float> z = logits;
    tang::Rng rng(seed);
    seen.insert(tang::sample_next(z, {100.0f, 0, 0.7f}, rng, scratch));
  }
  EXPECT_EQ(seen, (std::set<TokenId>{0, 1, 2}));
}

TEST(SampleNext, TopPSeesTheTopKDistribution) {
  // top-k = 3 leaves 4/9, 3/9, 2/9; p = 0.75 is reached by two of them. Top-p on
  // the full distribution first would have kept three (0.4 + 0.3 < 0.75).
  const auto logits = log_of({0.4f, 0.3f, 0.2f, 0.1f});
  tang::SamplerScratch scratch;
  std::set<TokenId> seen;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    std::vector<float> z = logits;
    tang::Rng rng(seed);
    seen.insert(tang::sample_next(z, {1.0f, 3, 0.75f}, rng, scratch));
  }
  EXPECT_EQ(seen, (std::set<TokenId>{0, 1}));
}

TEST(SampleNext, AMaskedCharacterIsNeverDrawn) {
  // mask -> temperature -> top-k: with the best character banned, top-k = 1 keeps the second.
  const std::vector<float> logits = {0.5f, 3.0f, 2.0f, 1.0f};
  tang::LogitMask mask(4);
  mask.ban(1);
  tang::SamplerScratch scratch;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (const tang::SamplingSettings s : {tang::SamplingSettings{1.0f, 1, 1.0f},
                                           {5.0f, 0, 1.0f},
                                           {5.0f, 4, 0.99f},
                                           {0.0f, 0, 1.0f}}) {
      std::vector<float> z = logits;
      mask.apply(z);
      tang::Rng rng(seed);
      const TokenId id = tang::sample_next(z, s, rng, scratch);
      EXPECT_NE(id, 1) << "seed " << seed;
      if (s.top_k == 1 || s.temperature == 0.0f) {
        EXPECT_EQ(id, 2);
      }
    }
  }
}

// --- constraints (lesson 05) -----------------------------------------------------

TEST(LogitMask, BanSetsMinusInfinity) {
  tang::LogitMask mask(5);
  EXPECT_EQ(mask.allowed_count(), 5u);
  mask.ban(1).ban(3);
  EXPECT_FALSE(mask.allows(1));
  EXPECT_TRUE(mask.allows(2));
  EXPECT_EQ(mask.allowed_count(), 3u);
  std::vector<float> z = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  mask.apply(z);
  EXPECT_EQ(z, (std::vector<float>{1.0f, -kInf, 3.0f, -kInf, 5.0f}));
  tang::softmax_in_place(z);
  EXPECT_EQ(z[1], 0.0f);
  EXPECT_EQ(z[3], 0.0f);
}

TEST(LogitMask, BanningTwiceOrAfterAllowOnlyCountsOnce) {
  tang::LogitMask mask(5);
  mask.ban(2).ban(2).ban(4);
  EXPECT_EQ(mask.allowed_count(), 3u);
  const std::vector<TokenId> allowed = {0, 2};
  mask.allow_only(allowed).ban(2).ban(3);  // 3 is banned already
  EXPECT_EQ(mask.allowed_count(), 1u);
  std::vector<float> z(5, 1.0f);
  mask.apply(z);
  EXPECT_EQ(support(z, true), (std::vector<TokenId>{0}));
}

TEST(LogitMask, AllowOnly) {
  tang::LogitMask mask(6);
  const std::vector<TokenId> allowed = {2, 5};
  mask.allow_only(allowed);
  EXPECT_EQ(mask.allowed_count(), 2u);
  std::vector<float> z(6, 1.0f);
  mask.apply(z);
  EXPECT_EQ(support(z, true), allowed);
  EXPECT_EQ(z[2], 1.0f);
}

TEST(LogitMask, EmptyAllowedSetIsAClearError) {
  tang::LogitMask mask(4);
  mask.allow_only(std::vector<TokenId>{});
  EXPECT_EQ(mask.allowed_count(), 0u);
  std::vector<float> z(4, 0.0f);
  try {
    mask.apply(z);
    FAIL() << "applying a mask that allows nothing must throw";
  } catch (const tang::UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no character"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line";
  }
  tang::LogitMask all_banned(2);
  all_banned.ban(0).ban(1);
  std::vector<float> two(2, 0.0f);
  EXPECT_THROW(all_banned.apply(two), tang::UserError);
}

class TinyLessonModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = new tang::GPT(tang::load_checkpoint(kTinyModel)); }
  static void TearDownTestSuite() { delete model_, model_ = nullptr; }
  const tang::GPT& model() const { return *model_; }
  const tang::Tokenizer& tokenizer() const { return model_->tokenizer(); }
  TokenId id(const std::string& c) const { return *tokenizer().find(c); }
  static tang::GPT* model_;
};
tang::GPT* TinyLessonModel::model_ = nullptr;

TEST_F(TinyLessonModel, IsTheExpectedTinyModel) {
  ASSERT_EQ(model().config().vocab_size, 11u);
  ASSERT_EQ(model().config().block_size, 16u);
  ASSERT_EQ(tokenizer().character(0), "\n");
}

TEST_F(TinyLessonModel, InsideLineMaskBansPunctuationAndNewline) {
  const tang::LogitMask mask = tang::inside_line_mask(tokenizer());
  EXPECT_EQ(mask.allowed_count(), tokenizer().size() - 3);
  EXPECT_FALSE(mask.allows(id("\n")));
  EXPECT_FALSE(mask.allows(id("，")));
  EXPECT_FALSE(mask.allows(id("。")));
  for (const char* c : {"春", "风", "花", "月", "夜", "山", "水", "人"})
    EXPECT_TRUE(mask.allows(id(c))) << c;
}

TEST_F(TinyLessonModel, BanByCharacterIgnoresUnknownCharacters) {
  tang::LogitMask mask(tokenizer().size());
  mask.ban(tokenizer(), {"春", "x", "龙"});
  EXPECT_EQ(mask.allowed_count(), tokenizer().size() - 1);
  EXPECT_FALSE(mask.allows(id("春")));
}

// Checks the form of an acrostic; returns "" or what is wrong.
std::string acrostic_problem(const std::string& poem, const std::vector<std::string>& heads,
                             std::size_t per_line) {
  const std::vector<std::string> chars = tang::utf8_split(poem);
  if (chars.size() != heads.size() * (per_line + 1)) {
    return "length " + std::to_string(chars.size()) + ", expected " +
           std::to_string(heads.size() * (per_line + 1));
  }
  for (std::size_t line = 0; line < heads.size(); ++line) {
    const std::size_t at = line * (per_line + 1);
    if (chars[at] != heads[line])
      return "line " + std::to_string(line) + " does not start with its head";
    for (std::size_t i = 1; i < per_line; ++i) {
      const std::string& c = chars[at + i];
      if (c == "，" || c == "。" || c == "\n")
        return "punctuation or newline inside line " + std::to_string(line);
    }
    if (chars[at + per_line] != (line % 2 == 0 ? "，" : "。")) {
      return "line " + std::to_string(line) + " does not end with the right punctuation";
    }
  }
  return "";
}

TEST_F(TinyLessonModel, AcrosticKeepsItsFormFor200Seeds) {
  const std::string heads = "春风花月";
  const std::vector<std::string> head_chars = tang::utf8_split(heads);
  // Plain sampling, a high temperature with top-k, one with top-p, and greedy, in turn.
  const tang::SamplingSettings settings[] = {
      {1.0f, 0, 1.0f}, {1.5f, 3, 1.0f}, {2.0f, 0, 0.9f}, {0.0f, 0, 1.0f}};
  tang::Decoder with(model(), true), without(model(), false);
  for (std::size_t per_line : {5u, 7u}) {  // 4 lines of 6 or 8: past the context of 16
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      const tang::SamplingSettings& s = settings[seed % 4];
      tang::Rng rng(seed);
      const std::string poem = tang::write_acrostic((seed / 4) % 2 ? with : without, tokenizer(),
                                                    heads, per_line, s, rng);
      const std::string problem = acrostic_problem(poem, head_chars, per_line);
      ASSERT_EQ(problem, "") << "seed " << seed << " per_line " << per_line << " T "
                             << s.temperature << ": " << poem;
    }
  }
}

TEST_F(TinyLessonModel, AcrosticIsTheSameWithAndWithoutCache) {
  tang::Decoder with(model(), true), without(model(), false);
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    tang::Rng a(seed), b(seed);
    EXPECT_EQ(tang::write_acrostic(with, tokenizer(), "春夜山水人", 7, {1.0f, 0, 1.0f}, a),
              tang::write_acrostic(without, tokenizer(), "春夜山水人", 7, {1.0f, 0, 1.0f}, b))
        << "seed " << seed;
  }
}

TEST_F(TinyLessonModel, AcrosticOfOneCharacterLines) {
  tang::Decoder decoder(model(), false);
  tang::Rng rng(1);
  EXPECT_EQ(tang::write_acrostic(decoder, tokenizer(), "春风花", 1, {1.0f, 0, 1.0f}, rng),
            "春，风。花，");
}

TEST_F(TinyLessonModel, AcrosticRejectsBadHeads) {
  tang::Decoder decoder(model(), false);
  tang::Rng rng(1);
  const tang::SamplingSettings s{1.0f, 0, 1.0f};
  try {
    tang::write_acrostic(decoder, tokenizer(), "春龙", 5, s, rng);
    FAIL() << "an unknown head must be an error";
  } catch (const tang::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'龙'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tang::write_acrostic(decoder, tokenizer(), "春\n", 5, s, rng), tang::UserError);
  EXPECT_THROW(tang::write_acrostic(decoder, tokenizer(), "春风", 0, s, rng), tang::UserError);
}

// --- the Decoder, with and without the cache -------------------------------------

std::vector<float> copy_of(const tang::View<2>& logits) {
  return std::vector<float>(logits.data(), logits.data() + logits.size());
}

double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  return diff / scale;
}

// The logits a fresh forward pass gives for the last block_size characters of `context`.
std::vector<float> cropped_from_scratch(const tang::GPT& model,
                                        const std::vector<TokenId>& context) {
  const std::size_t block = model.config().block_size;
  std::span<const TokenId> window(context);
  if (window.size() > block) window = window.subspan(window.size() - block);
  tang::KVCache cache(model.config());
  tang::ForwardState state(model.config());
  return copy_of(tang::forward(model, window, 0, cache, state, tang::LogitsFor::kLastPosition));
}

TEST_F(TinyLessonModel, DecoderGivesTheSameLogitsWithAndWithoutCacheAlsoPastTheContext) {
  const std::size_t block = model().config().block_size;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    tang::Decoder with(model(), true), without(model(), false);
    EXPECT_TRUE(with.uses_cache());
    EXPECT_FALSE(without.uses_cache());
    std::vector<TokenId> context = {0};
    tang::Rng rng(seed);
    while (context.size() < 41) {  // 40 generated characters: well past the 16 of the context
      const auto a = copy_of(with.next_logits(context));
      const auto b = copy_of(without.next_logits(context));
      const auto reference = cropped_from_scratch(model(), context);
      ASSERT_EQ(a.size(), model().config().vocab_size);
      EXPECT_EQ(b, reference) << "the uncached decoder is the cropped forward pass, step "
                              << context.size();
      if (context.size() <= block) {
        EXPECT_LT(relative_error(a, b), 1e-5) << "step " << context.size();
        EXPECT_EQ(with.cache().length, context.size());
      } else {
        // Past the context every position shifts: the cache is rebuilt from the
        // window, so the result must be exactly the uncached one.
        EXPECT_EQ(a, b) << "step " << context.size();
        EXPECT_EQ(with.cache().length, block);
      }
      std::vector<float> z = b;
      context.push_back(tang::sample_with_temperature(z, 1.0f, rng));
    }
  }
}

TEST_F(TinyLessonModel, GenerationIsTheSameWithAndWithoutCachePastTheContext) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::vector<std::vector<TokenId>> written;
    for (bool cache : {false, true}) {
      tang::Decoder decoder(model(), cache);
      std::vector<TokenId> context = {0};
      tang::Rng rng(seed);
      written.push_back(
          tang::write(decoder, context, tang::temperature_picker(1.0f), rng, 40, false));
      EXPECT_EQ(written.back().size(), 40u);
    }
    EXPECT_EQ(written[0], written[1]) << "seed " << seed;
  }
}

TEST_F(TinyLessonModel, CachedDecoderNoticesAChangedContext) {
  tang::Decoder with(model(), true), without(model(), false);
  const std::vector<std::vector<TokenId>> contexts = {
      {0, 1, 2, 3}, {0, 1, 2, 3, 4},
      {0, 1, 5},  // not an extension: must start over
      {0, 1, 5},  // the same context twice
      {7},          {7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8},
      {2}};
  for (const auto& context : contexts) {
    const auto a = copy_of(with.next_logits(context));
    const auto b = copy_of(without.next_logits(context));
    EXPECT_LT(relative_error(a, b), 1e-5) << "context of " << context.size();
    EXPECT_LT(relative_error(a, cropped_from_scratch(model(), context)), 1e-5);
  }
  EXPECT_THROW(with.next_logits(std::vector<TokenId>{}), std::invalid_argument);
}

TEST_F(TinyLessonModel, EncodePromptKeepsTheLastBlockAndSaysSo) {
  const std::size_t block = model().config().block_size;
  std::string long_prompt;
  for (int i = 0; i < 5; ++i) long_prompt += "春风花月夜，山水人。";  // 50 characters
  std::ostringstream out;
  const auto ids = tang::encode_prompt(model(), long_prompt, out);
  const auto all = tokenizer().encode(long_prompt);
  ASSERT_EQ(all.size(), 50u);
  ASSERT_EQ(ids.size(), block);
  EXPECT_TRUE(std::equal(ids.begin(), ids.end(), all.end() - static_cast<std::ptrdiff_t>(block)));
  EXPECT_NE(out.str().find("keeps the last " + std::to_string(block)), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("50 characters"), std::string::npos) << out.str();

  std::ostringstream quiet;
  const std::string exactly_block = long_prompt.substr(0, 3 * block);  // 16 characters of 3 bytes
  EXPECT_EQ(tang::encode_prompt(model(), exactly_block, quiet).size(), block);
  EXPECT_EQ(tang::encode_prompt(model(), "春风", quiet),
            (std::vector<TokenId>{id("春"), id("风")}));
  EXPECT_EQ(quiet.str(), "") << "a prompt that fits needs no note";
}

TEST_F(TinyLessonModel, EncodePromptRejectsEmptyAndUnknown) {
  std::ostringstream out;
  EXPECT_THROW(tang::encode_prompt(model(), "", out), tang::UserError);
  try {
    tang::encode_prompt(model(), "春h风", out);
    FAIL() << "an unknown character must be an error";
  } catch (const tang::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'h'"), std::string::npos) << e.what();
  }
}

}  // namespace
