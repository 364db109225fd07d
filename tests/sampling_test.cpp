// sampling_test: what the lessons do with the logits, on tiny hand-made
// distributions and the tiny model: softmax and the most likely characters
// (lesson 01), top-k and the full sampling step (lesson 03), masks, the
// acrostic and the fixed form (lesson 05), the flags checked against a model,
// and encode_prompt.
//
// The hand-made numbers are chosen so that a reader can check every expectation
// with pencil and paper. The draw itself (exercise 02's sample_from) and top-p
// (exercise 03) have their own tests in tests/exercises/; here they run as the
// lessons run them (the reference solutions in the default build). The tuned
// versions under the hood are compared with these in fast_test.cpp.

#include "sampling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "01_probabilities/next_char.hpp"
#include "02_temperature/distribution.hpp"
#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "03_topk_topp/exercise/top_p.hpp"
#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/acrostic.hpp"
#include "05_acrostic/fixed_form.hpp"
#include "05_acrostic/logit_mask.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "lesson.hpp"
#include "options.hpp"
#include "rng.hpp"
#include "tiny_golden.hpp"
#include "utf8.hpp"

namespace {

using tang::TokenId;

constexpr float kInf = std::numeric_limits<float>::infinity();

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
  // The length of the real vocabulary, with -inf entries as top-k leaves them.
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

// The lessons' softmax adds its terms left to right, so that its result does not
// depend on the machine: exactly exp(z - max), a float sum in id order, one division each.
TEST(Softmax, IsExpThenALeftToRightSumBitForBit) {
  tang::Rng rng(5);
  for (const std::size_t n : {1u, 7u, 64u, 7129u}) {
    std::vector<float> z(n);
    for (float& x : z) x = rng.uniform() < 0.1f ? -kInf : rng.normal() * 3.0f;
    z[0] = 0.5f;
    std::vector<float> expected = z;
    const float max = *std::max_element(z.begin(), z.end());
    float total = 0.0f;
    for (float& x : expected) total += (x = std::exp(x - max));
    for (float& x : expected) x /= total;
    tang::softmax_in_place(z);
    EXPECT_EQ(tang::testing::bit_difference(z, expected), "") << "n " << n;
  }
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

TEST(MostLikely, IsTheStartOfTheWholeVocabularySorted) {
  std::mt19937 gen(7);
  std::vector<float> p(1000);  // few distinct values: many ties
  for (float& x : p) x = static_cast<float>(gen() % 50) / 50.0f;
  std::vector<tang::Candidate> sorted;
  for (std::size_t i = 0; i < p.size(); ++i)
    sorted.push_back({static_cast<tang::TokenId>(i), p[i]});
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.probability > b.probability;  // stable: ties keep the smaller id first
  });
  for (const std::size_t n : {0u, 1u, 5u, 8u, 999u, 1000u, 5000u}) {
    const auto top = tang::most_likely(p, n);
    ASSERT_EQ(top.size(), std::min(n, p.size())) << "n " << n;
    for (std::size_t i = 0; i < top.size(); ++i) {
      EXPECT_EQ(top[i].id, sorted[i].id) << "n " << n << ", place " << i;
      EXPECT_EQ(top[i].probability, sorted[i].probability);
    }
  }
}

TEST(NextCharProbabilities, IsTheSoftmaxOfThePredictorsLogits) {
  const tang::GPT& model = tang::testing::tiny_model();
  tang::Recompute predictor(model);
  const std::vector<TokenId> prompt = {0, 1, 2};
  std::vector<float> expected = tang::testing::copy_of(predictor.next_logits(prompt));
  tang::softmax_in_place(expected);
  const std::vector<float> got = tang::next_char_probabilities(predictor, prompt);
  EXPECT_EQ(tang::testing::bit_difference(got, expected), "");
  EXPECT_NEAR(sum_of(got), 1.0f, 1e-6);
}

TEST(Argmax, FirstOfTheLargest) {
  EXPECT_EQ(tang::argmax(std::vector<float>{1.0f, 3.0f, 3.0f, 2.0f}), 1);
  EXPECT_EQ(tang::argmax(std::vector<float>{-kInf, -5.0f, -kInf}), 1);
  EXPECT_EQ(tang::argmax(std::vector<float>{9.0f}), 0);
}

// --- top-k (lesson 03) ----------------------------------------------------------

std::vector<float> top_k(std::vector<float> z, std::size_t k) {
  tang::top_k_filter(z, k);
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
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng.below(60);
    std::vector<float> z(n);
    for (float& x : z) x = static_cast<float>(rng.below(20)) * 0.5f;  // many ties
    if (trial % 3 == 0) z[rng.below(n)] = -kInf;                      // masked already
    const std::size_t k = rng.below(n + 2);
    std::vector<float> got = z;
    tang::top_k_filter(got, k);
    std::vector<float> sorted = z;
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    for (std::size_t i = 0; i < n; ++i) {
      const bool keep = k == 0 || k >= n || z[i] >= sorted[k - 1];
      EXPECT_EQ(got[i], keep ? z[i] : -kInf) << "trial " << trial << " k " << k << " i " << i;
    }
  }
}

// --- the full sampling step (lesson 03) -------------------------------------------

TEST(SampleNext, ZeroTemperatureIsGreedyWhateverTheFilters) {
  tang::Rng rng(5);
  const std::uint64_t before = rng.state();
  std::vector<float> z = {0.1f, 0.9f, 0.3f, 0.9f};
  EXPECT_EQ(tang::sample_next(z, {0.0f, 3, 0.5f}, rng), 1);
  EXPECT_EQ(rng.state(), before) << "greedy draws no random number";
}

TEST(SampleNext, IsTemperatureThenTopKThenSoftmaxThenTopPThenOneCoin) {
  const std::vector<float> logits = {1.2f, -0.3f, 0.8f, 2.1f, 0.0f, -kInf, 1.9f, 0.4f};
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    for (const tang::SamplingSettings s : {tang::SamplingSettings{1.0f, 0, 1.0f},
                                           {1.5f, 3, 1.0f},
                                           {0.7f, 0, 0.6f},
                                           {2.0f, 5, 0.8f}}) {
      std::vector<float> got = logits, expected = logits;
      tang::Rng rng(seed), copy(seed);
      const TokenId id = tang::sample_next(got, s, rng);
      for (float& z : expected) z /= s.temperature;
      tang::top_k_filter(expected, s.top_k);
      tang::softmax_in_place(expected);
      tang::top_p_filter(expected, s.top_p);
      EXPECT_EQ(id, tang::sample_from(expected, copy.uniform())) << "seed " << seed;
      EXPECT_EQ(rng.state(), copy.state()) << "one coin per character";
      EXPECT_NE(id, 5) << "a -inf logit was drawn";
    }
  }
}

TEST(SampleNext, TopPSeesTheTemperedDistribution) {
  // At T = 1 these are 0.4/0.3/0.2/0.1 and p = 0.7 keeps two. At T = 100 they are
  // nearly flat and p = 0.7 needs three: top-p must come after the temperature.
  const auto logits = log_of({0.4f, 0.3f, 0.2f, 0.1f});
  std::set<TokenId> seen;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    std::vector<float> z = logits;
    tang::Rng rng(seed);
    seen.insert(tang::sample_next(z, {100.0f, 0, 0.7f}, rng));
  }
  EXPECT_EQ(seen, (std::set<TokenId>{0, 1, 2}));
}

TEST(SampleNext, TopPSeesTheTopKDistribution) {
  // top-k = 3 leaves 4/9, 3/9, 2/9; p = 0.75 is reached by two of them. Top-p on
  // the full distribution first would have kept three (0.4 + 0.3 < 0.75).
  const auto logits = log_of({0.4f, 0.3f, 0.2f, 0.1f});
  std::set<TokenId> seen;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    std::vector<float> z = logits;
    tang::Rng rng(seed);
    seen.insert(tang::sample_next(z, {1.0f, 3, 0.75f}, rng));
  }
  EXPECT_EQ(seen, (std::set<TokenId>{0, 1}));
}

TEST(SampleNext, FrequenciesFollowTheProbabilities) {
  const std::vector<float> p = {0.1f, 0.2f, 0.3f, 0.4f};
  const auto logits = log_of(p);
  std::vector<int> count(4, 0);
  tang::Rng rng(123);
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    std::vector<float> z = logits;
    ++count[static_cast<std::size_t>(tang::sample_next(z, {1.0f, 0, 1.0f}, rng))];
  }
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(static_cast<double>(count[i]) / n, p[i], 0.01) << "id " << i;
  }
}

TEST(SampleNext, AMaskedCharacterIsNeverDrawn) {
  // mask -> temperature -> top-k: with the best character banned, top-k = 1 keeps the second.
  const std::vector<float> logits = {0.5f, 3.0f, 2.0f, 1.0f};
  tang::LogitMask mask(4);
  mask.ban(1);
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (const tang::SamplingSettings s : {tang::SamplingSettings{1.0f, 1, 1.0f},
                                           {5.0f, 0, 1.0f},
                                           {5.0f, 4, 0.99f},
                                           {0.0f, 0, 1.0f}}) {
      std::vector<float> z = logits;
      mask.apply(z);
      tang::Rng rng(seed);
      const TokenId id = tang::sample_next(z, s, rng);
      EXPECT_NE(id, 1) << "seed " << seed;
      if (s.top_k == 1 || s.temperature == 0.0f) {
        EXPECT_EQ(id, 2);
      }
    }
  }
}

TEST(SampleNext, PickerAndWritingSettings) {
  const tang::SamplingSettings s{0.9f, 2, 0.8f};
  const tang::Picker pick = tang::sampling_picker(s);
  const std::vector<float> logits = {0.3f, 1.0f, -0.5f, 0.9f, 0.2f};
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    std::vector<float> a = logits, b = logits;
    tang::Rng r1(seed), r2(seed);
    EXPECT_EQ(pick(a, 0, r1, nullptr), tang::sample_next(b, s, r2)) << "seed " << seed;
  }
  tang::LessonOptions options;  // defaults: no --temperature, top-k 20
  tang::SamplingSettings w = tang::writing_settings(options);
  EXPECT_EQ(w.temperature, 0.8f);
  EXPECT_EQ(w.top_k, 20u);
  EXPECT_EQ(w.top_p, 1.0f) << "lessons 04-06 write with top-k only";
  options.temperature = 1.3f;
  options.top_k = 0;
  w = tang::writing_settings(options);
  EXPECT_EQ(w.temperature, 1.3f);
  EXPECT_EQ(w.top_k, 0u);
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
  const tang::GPT& model() const { return tang::testing::tiny_model(); }
  const tang::Tokenizer& tokenizer() const { return model().tokenizer(); }
  TokenId id(const std::string& c) const { return *tokenizer().find(c); }
};

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
  tang::CachedPredictor with(model());
  tang::Recompute without(model());
  for (std::size_t per_line : {5u, 7u}) {  // 4 lines of 6 or 8: past the context of 16
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      const tang::SamplingSettings& s = settings[seed % 4];
      tang::Rng rng(seed);
      tang::Predictor& predictor = (seed / 4) % 2 ? static_cast<tang::Predictor&>(with) : without;
      const std::string poem =
          tang::write_acrostic(predictor, tokenizer(), heads, per_line, s, rng);
      const std::string problem = acrostic_problem(poem, head_chars, per_line);
      ASSERT_EQ(problem, "") << "seed " << seed << " per_line " << per_line << " T "
                             << s.temperature << ": " << poem;
    }
  }
}

TEST_F(TinyLessonModel, AcrosticIsTheSameWithAndWithoutCache) {
  tang::CachedPredictor with(model());
  tang::Recompute without(model());
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    tang::Rng a(seed), b(seed);
    EXPECT_EQ(tang::write_acrostic(with, tokenizer(), "春夜山水人", 7, {1.0f, 0, 1.0f}, a),
              tang::write_acrostic(without, tokenizer(), "春夜山水人", 7, {1.0f, 0, 1.0f}, b))
        << "seed " << seed;
  }
}

// Writers are state: four texts, two poems and two acrostics, stepped in turn by
// one loop with one predictor each, write what each writes alone through write()
// and write_acrostic(): the same characters, the same coins.
TEST_F(TinyLessonModel, WritersSteppedInTurnWriteWhatTheyWriteAlone) {
  const tang::SamplingSettings s{1.2f, 0, 1.0f};
  const tang::Picker pick = tang::sampling_picker(s);
  std::vector<std::vector<TokenId>> contexts(2, tokenizer().encode("\n春"));
  std::vector<tang::Rng> rngs = {tang::Rng(3), tang::Rng(4), tang::Rng(5), tang::Rng(6)};
  std::vector<std::unique_ptr<tang::Writer>> writers;
  for (std::size_t i = 0; i < 2; ++i) {
    writers.push_back(std::make_unique<tang::SampledWriter>(contexts[i], pick, rngs[i], 30,
                                                            tokenizer().newline()));
  }
  writers.push_back(std::make_unique<tang::AcrosticWriter>(tokenizer(), "春夜山", 5, s, rngs[2]));
  writers.push_back(std::make_unique<tang::AcrosticWriter>(tokenizer(), "水人", 7, s, rngs[3]));
  std::vector<std::unique_ptr<tang::Recompute>> predictors;
  for (std::size_t i = 0; i < writers.size(); ++i)
    predictors.push_back(std::make_unique<tang::Recompute>(model()));
  for (bool stepped = true; stepped;) {  // one step of each writer not done, in turn
    stepped = false;
    for (std::size_t i = 0; i < writers.size(); ++i) {
      if (writers[i]->done()) continue;
      writers[i]->take(predictors[i]->next_logits(writers[i]->context()));
      stepped = true;
    }
  }
  for (std::size_t i = 0; i < 2; ++i) {
    std::vector<TokenId> alone = tokenizer().encode("\n春");
    tang::Rng rng(3 + i);
    tang::Recompute predictor(model());
    tang::write(predictor, alone, pick, rng, 30, tokenizer().newline());
    EXPECT_EQ(contexts[i], alone) << "poem " << i;
  }
  tang::Recompute predictor(model());
  tang::Rng rng5(5), rng6(6);
  EXPECT_EQ(static_cast<tang::AcrosticWriter&>(*writers[2]).poem(),
            tang::write_acrostic(predictor, tokenizer(), "春夜山", 5, s, rng5));
  EXPECT_EQ(static_cast<tang::AcrosticWriter&>(*writers[3]).poem(),
            tang::write_acrostic(predictor, tokenizer(), "水人", 7, s, rng6));
}

TEST_F(TinyLessonModel, AcrosticOfOneCharacterLines) {
  tang::Recompute predictor(model());
  tang::Rng rng(1);
  EXPECT_EQ(tang::write_acrostic(predictor, tokenizer(), "春风花", 1, {1.0f, 0, 1.0f}, rng),
            "春，风。花，");
}

TEST_F(TinyLessonModel, AcrosticRejectsBadHeads) {
  tang::Recompute predictor(model());
  tang::Rng rng(1);
  const tang::SamplingSettings s{1.0f, 0, 1.0f};
  try {
    tang::write_acrostic(predictor, tokenizer(), "春龙", 5, s, rng);
    FAIL() << "an unknown head must be an error";
  } catch (const tang::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'龙'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tang::write_acrostic(predictor, tokenizer(), "春\n", 5, s, rng), tang::UserError);
  EXPECT_THROW(tang::write_acrostic(predictor, tokenizer(), "春，", 5, s, rng), tang::UserError);
  EXPECT_THROW(tang::write_acrostic(predictor, tokenizer(), "春风", 0, s, rng), tang::UserError);
}

// --- the fixed form (lesson 05): a mask chosen for every position ------------------

TEST_F(TinyLessonModel, WriteUnderMasksAppliesTheMaskOfEachPosition) {
  // Position 1: only 春; 2: only 风; 3: only the newline; the model cannot disobey.
  const tang::MaskForPosition mask_for = [&](std::size_t position) {
    const TokenId only[] = {position == 1 ? id("春") : position == 2 ? id("风") : id("\n")};
    return tang::LogitMask(tokenizer().size()).allow_only(only);
  };
  tang::Recompute predictor(model());
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    tang::Rng rng(seed);
    EXPECT_EQ(tang::write_under_masks(predictor, tokenizer(), mask_for, {1.5f, 0, 1.0f}, rng, 40),
              (std::vector<TokenId>{id("春"), id("风"), id("\n")}))
        << "seed " << seed;
  }
  // max_chars stops a poem that never writes its newline
  const tang::MaskForPosition no_newline = [&](std::size_t) {
    return tang::LogitMask(tokenizer().size()).ban(id("\n"));
  };
  tang::Rng rng(1);
  EXPECT_EQ(
      tang::write_under_masks(predictor, tokenizer(), no_newline, {1.0f, 0, 1.0f}, rng, 12).size(),
      12u);
}

TEST_F(TinyLessonModel, QiyanJuejuProblemNamesWhatIsWrong) {
  const std::string line = "春风花月夜山水";
  const std::string good = line + "，" + line + "。" + line + "，" + line + "。\n";
  EXPECT_EQ(tang::qiyan_jueju_problem(tokenizer(), tokenizer().encode(good)), "");

  std::string wrong_end = good;
  wrong_end.replace(wrong_end.find("，"), std::string("，").size(), "花");
  EXPECT_EQ(tang::qiyan_jueju_problem(tokenizer(), tokenizer().encode(wrong_end)),
            "character 8 is '花', expected '，'");

  const std::string punctuation_inside = "春，" + good.substr(std::string("春风").size());
  EXPECT_NE(tang::qiyan_jueju_problem(tokenizer(), tokenizer().encode(punctuation_inside))
                .find("character 2 is '，'"),
            std::string::npos);

  const std::string too_short = line + "，" + line + "。\n";
  EXPECT_NE(
      tang::qiyan_jueju_problem(tokenizer(), tokenizer().encode(too_short)).find("character 17"),
      std::string::npos)
      << tang::qiyan_jueju_problem(tokenizer(), tokenizer().encode(too_short));
  const std::string no_newline = good.substr(0, good.size() - 1);
  EXPECT_NE(
      tang::qiyan_jueju_problem(tokenizer(), tokenizer().encode(no_newline)).find("expected 33"),
      std::string::npos);
}

// --- flags against a model, and the prompt (common/options.hpp, common/lesson.hpp) -----

TEST_F(TinyLessonModel, FlagsAreCheckedAgainstTheModel) {
  tang::LessonOptions options;
  options.prompts = {"春风"};
  options.heads = {"春风花月"};
  EXPECT_NO_THROW(tang::check_options_against_model(options, model()));
  for (const char* bad_prompt : {"春h", "春😀", "\xff"}) {
    tang::LessonOptions o = options;
    o.prompts = {bad_prompt};
    EXPECT_THROW(tang::check_options_against_model(o, model()), tang::BadOption) << bad_prompt;
  }
  for (const char* bad_heads : {"春龙", "春，", "春\n", "😀"}) {
    tang::LessonOptions o = options;
    o.heads = {bad_heads};
    try {
      tang::check_options_against_model(o, model());
      ADD_FAILURE() << "--heads " << bad_heads << " must be refused";
    } catch (const tang::BadOption& e) {
      EXPECT_NE(std::string(e.what()).find("--heads"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
  }
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

TEST(Printable, ShowsTheNewlineAsASymbol) {
  EXPECT_EQ(tang::printable("\n"), "⏎");
  EXPECT_EQ(tang::printable("春"), "春");
}

// --- lesson 02's spread of a distribution ------------------------------------

TEST(Spread, UniformOverFour) {
  const std::vector<float> p = {0.25f, 0.25f, 0.25f, 0.25f};
  const tang::Spread s = tang::spread_of(p);
  EXPECT_NEAR(s.entropy, std::log(4.0), 1e-12);
  EXPECT_NEAR(s.choices, 4.0, 1e-9);
  EXPECT_NEAR(s.top20, 1.0, 1e-12);
  EXPECT_EQ(s.nucleus, 4u);  // 0.25, 0.5, 0.75 are short of 0.9
}

TEST(Spread, OneCharacterHasItAll) {
  std::vector<float> p(100, 0.0f);
  p[37] = 1.0f;
  const tang::Spread s = tang::spread_of(p);
  EXPECT_EQ(s.entropy, 0.0);
  EXPECT_EQ(s.choices, 1.0);
  EXPECT_EQ(s.nucleus, 1u);
}

TEST(Spread, NucleusAndTopTwentyOfALongTail) {
  // 0.5, 0.3, then 30 characters of 0.006: 0.8 + 16 x 0.006 = 0.896 is still short
  // of 0.9, so the 17th of them is in; after it 0.902 is not short any more
  std::vector<float> p = {0.5f, 0.3f};
  p.insert(p.end(), 30, 0.006f);
  const tang::Spread s = tang::spread_of(p);
  EXPECT_EQ(s.nucleus, 19u);
  EXPECT_NEAR(s.top20, 0.8 + 18 * 0.006, 1e-6);
}

}  // namespace
