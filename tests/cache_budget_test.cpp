// cache_budget_test: lesson 13's caches. A float32 quantized cache and a dropping
// cache whose budget is the whole context are lesson 06's cache bit for bit; the
// quantizer's exact cases and its bound; why keys are quantized per channel; the
// dropping rules keep what they say; the formats' names, sizes and bad names;
// the scoring against lesson 06 (KL 0 for itself); the small cases --yours 13
// runs first report a wrong tie rule, which the lesson's own calls never reach.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "13_cache_budget/budget_runs.hpp"
#include "13_cache_budget/dropping_cache.hpp"
#include "13_cache_budget/positions_to_keep_switch.hpp"
#include "13_cache_budget/quantized_cache.hpp"
#include "errors.hpp"
#include "exercise_code.hpp"
#include "tiny_golden.hpp"

namespace {

using namespace tang;

std::vector<TokenId> random_text(std::size_t n, std::size_t vocab, std::uint64_t seed) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  std::vector<TokenId> text(n);
  for (TokenId& id : text) id = static_cast<TokenId>(rng() % vocab);
  return text;
}

// Feeds `text` one character a step through a cache (a piece of `prefill` first),
// returning every step's logits.
template <class Cache>
std::vector<float> logits_through(const GPT& model, Cache& cache, std::span<const TokenId> text,
                                  std::size_t prefill = 1) {
  Activations acts = step_activations(model.config(), prefill);
  const ModelMatrices<> matrices(model);
  Cache* const caches[] = {&cache};
  std::vector<float> all;
  for (std::size_t p = 0; p < text.size();) {
    const std::size_t T = p == 0 ? prefill : 1;
    const View<2> logits = forward_with_cache(model, matrices, text.subspan(p, T), caches, acts,
                                              LogitsFor::kLastPosition);
    all.insert(all.end(), logits.data(), logits.data() + logits.size());
    p += T;
  }
  return all;
}

TEST(QuantizedCache, InFloat32ItIsLessonSixsCacheBitForBit) {
  const GPT model = tang::testing::random_model(3);
  const std::vector<TokenId> text = random_text(64, 50, 1);
  KVCache lesson(model.config());
  QuantizedCache fp32(model.config(), parse_cache_format("fp32"));
  EXPECT_EQ(logits_through(model, fp32, text, 5), logits_through(model, lesson, text, 5));
}

TEST(QuantizedCache, PositionsNotYetStoredAreReadAsComputed) {
  // A recent window of the whole context: nothing is ever stored in int4, so
  // the logits are float32's, bit for bit; without it they are not.
  const GPT model = tang::testing::random_model(4);
  const std::vector<TokenId> text = random_text(40, 50, 2);
  KVCache lesson(model.config());
  const std::vector<float> exact = logits_through(model, lesson, text);
  QuantizedCache all_recent(model.config(), parse_cache_format("int4-token-recent64"));
  EXPECT_EQ(logits_through(model, all_recent, text), exact);
  QuantizedCache int4(model.config(), parse_cache_format("int4-token"));
  EXPECT_NE(logits_through(model, int4, text), exact);
}

TEST(QuantizedCache, Int8IsCloseAndInt4FurtherFromFloat32) {
  const GPT model = tang::testing::random_model(5);
  const std::vector<TokenId> text = random_text(64, 50, 3);
  const std::vector<double> log_probs = reference_log_probs(model, text);
  const auto kl = [&](const char* format) {
    return score_text_with(model, text, log_probs, 0,
                           QuantizedCache(model.config(), parse_cache_format(format)))
        .kl;
  };
  EXPECT_EQ(kl("fp32"), 0.0);
  EXPECT_GT(kl("int8-token"), 0.0);
  EXPECT_LT(kl("int8-token"), 1e-3);
  EXPECT_GT(kl("int4-token"), 10 * kl("int8-token"));
}

TEST(QuantizedCache, ASecondRunOfTheSameTextGivesTheSameLogits) {
  // CachedPredictor starts a cache again by setting its length to 0.
  const GPT model = tang::testing::random_model(6);
  const std::vector<TokenId> text = random_text(50, 50, 4);
  for (const char* name : {"int4-channel", "kivi4-recent8", "bf16"}) {
    QuantizedCache cache(model.config(), parse_cache_format(name));
    const std::vector<float> first = logits_through(model, cache, text);
    cache.length = 0;
    EXPECT_EQ(logits_through(model, cache, text), first) << name;
  }
}

TEST(QuantizedCache, TakenBackItReadsAsItDidThen) {
  // Set back from 40 positions to 20, the recent window's positions and the keys' block
  // not yet full are read as computed again: positions 20 .. 39 give the same logits.
  const GPT model = tang::testing::random_model(12);
  const std::vector<TokenId> text = random_text(40, 50, 9);
  QuantizedCache cache(model.config(), parse_cache_format("kivi4-recent8"));
  const std::vector<float> first = logits_through(model, cache, text);
  cache.length = 20;  // the text's positions 20 .. 39 again
  const std::vector<float> again = logits_through(model, cache, std::span(text).subspan(20));
  EXPECT_EQ(again, std::vector<float>(first.begin() + 20 * 50, first.end()));
}

TEST(Quantize, ExactCasesAndTheHalfStepBound) {
  const float x[] = {127.0f, -63.5f, 2.5f, 0.0f};
  std::int8_t codes[4];
  EXPECT_EQ(quantize_run(x, 4, 1, 127, codes), 1.0f);
  EXPECT_EQ(std::vector<int>(codes, codes + 4), (std::vector<int>{127, -64, 3, 0}));
  const float zeros[] = {0.0f, 0.0f};
  EXPECT_EQ(quantize_run(zeros, 2, 1, 7, codes), 0.0f);
  EXPECT_EQ(codes[0], 0);
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> run(64), back(64);
  std::vector<std::int8_t> q(64);
  for (float& v : run) v = normal(rng);
  for (int qmax : {127, 7}) {
    const float scale = quantize_run(run.data(), 64, 1, qmax, q.data());
    dequantize_run(q.data(), scale, 64, 1, back.data());
    for (std::size_t i = 0; i < 64; ++i) EXPECT_LE(std::abs(back[i] - run[i]), scale * 0.5001f);
  }
}

TEST(Quantize, OneLargeChannelCostsEveryChannelPerTokenButOnlyItselfPerChannel) {
  // 32 positions x 8 channels, channel 0 ten times larger than the rest: per
  // token it sets every row's step; per channel the small ones keep theirs.
  constexpr std::size_t P = 32, C = 8;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> keys(P * C), back(P * C);
  for (std::size_t p = 0; p < P; ++p)
    for (std::size_t c = 0; c < C; ++c) keys[p * C + c] = (c == 0 ? 10.0f : 1.0f) * normal(rng);
  std::vector<std::int8_t> codes(P * C);
  const auto small_channel_error = [&] {
    double error = 0.0;
    for (std::size_t p = 0; p < P; ++p)
      for (std::size_t c = 1; c < C; ++c) error += std::abs(back[p * C + c] - keys[p * C + c]);
    return error;
  };
  for (std::size_t p = 0; p < P; ++p) {  // per token: a row at a time
    const float scale = quantize_run(&keys[p * C], C, 1, 7, &codes[p * C]);
    dequantize_run(&codes[p * C], scale, C, 1, &back[p * C]);
  }
  const double per_token = small_channel_error();
  for (std::size_t c = 0; c < C; ++c) {  // per channel: a column at a time
    const float scale = quantize_run(&keys[c], P, C, 7, &codes[c]);
    dequantize_run(&codes[c], scale, P, C, &back[c]);
  }
  EXPECT_LT(small_channel_error() * 3, per_token);
}

TEST(CacheFormat, NamesSizesAndBadNames) {
  GPTConfig config;  // the course's shape: 4 layers, 128 dims
  config.n_layer = 4, config.n_embd = 128;
  EXPECT_EQ(parse_cache_format("fp32").bytes_per_position(config), 4096.0);
  EXPECT_EQ(parse_cache_format("bf16").bytes_per_position(config), 2048.0);
  // int8 per token: 128 bytes and a 4-byte scale, keys and values, 4 layers
  EXPECT_EQ(parse_cache_format("int8-token").bytes_per_position(config), 4 * 2 * 132.0);
  // int4 per group: 64 bytes and 4 scales; per channel: a scale per channel per 32 positions
  EXPECT_EQ(parse_cache_format("int4-group").bytes_per_position(config), 4 * 2 * 80.0);
  EXPECT_EQ(parse_cache_format("int4-channel").bytes_per_position(config), 4 * 2 * 80.0);
  const CacheFormat kivi = parse_cache_format("kivi4-recent32");
  EXPECT_EQ(kivi.keys.name(), "int4/channel");
  EXPECT_EQ(kivi.values.name(), "int4/token");
  EXPECT_EQ(kivi.recent, 32u);
  for (const char* bad : {"int3-token", "fp16", "int8", "kivi4-recent0", "kivi4-recent128",
                          "kivi4-recentx", "fp32-recent4", ""})
    EXPECT_THROW(parse_cache_format(bad), UserError) << bad;
}

TEST(DroppingCache, WithTheWholeContextItIsLessonSixsCacheBitForBit) {
  const GPT model = tang::testing::random_model(7);
  const std::vector<TokenId> text = random_text(64, 50, 5);
  KVCache lesson(model.config());
  DroppingCache full(model.config(), {KeepRule::kHeavy, 64});
  EXPECT_EQ(logits_through(model, full, text, 3), logits_through(model, lesson, text, 3));
}

TEST(DroppingCache, EachRuleKeepsWhatItSays) {
  const GPT model = tang::testing::random_model(8);
  const std::vector<TokenId> text = random_text(40, 50, 6);
  for (const KeepRule::Kind kind : {KeepRule::kWindow, KeepRule::kSinks, KeepRule::kHeavy}) {
    DroppingCache cache(model.config(), {kind, 12});
    Activations acts = step_activations(model.config(), 1);
    const ModelMatrices<> matrices(model);
    DroppingCache* const caches[] = {&cache};
    for (std::size_t p = 0; p < text.size(); ++p) {
      forward_with_cache(model, matrices, std::span(text).subspan(p, 1), caches, acts,
                         LogitsFor::kLastPosition);
      const std::vector<std::size_t>& kept = cache.kept();
      ASSERT_EQ(kept.size(), std::min<std::size_t>(p + 1, 12));
      ASSERT_TRUE(std::is_sorted(kept.begin(), kept.end()));
      if (p < 12) continue;
      EXPECT_EQ(kept.back(), p);  // the newest always stays
      if (kind == KeepRule::kWindow) {
        EXPECT_EQ(kept.front(), p - 11);
      } else if (kind == KeepRule::kSinks) {
        EXPECT_EQ(kept[3], 3u);
        EXPECT_EQ(kept[4], p - 7);
      } else {
        EXPECT_EQ(kept[6], p - 5);  // the newest 6 in a row
      }
    }
  }
}

TEST(DroppingCache, DroppingChangesTheLogitsOnlyPastTheBudget) {
  const GPT model = tang::testing::random_model(9);
  const std::vector<TokenId> text = random_text(30, 50, 7);
  KVCache lesson(model.config());
  DroppingCache window(model.config(), {KeepRule::kWindow, 10});
  const std::vector<float> exact = logits_through(model, lesson, text);
  const std::vector<float> dropped = logits_through(model, window, text);
  const std::size_t V = 50;
  // position p's query sees p + 1 positions; up to p = 10 the budget of 10 plus itself holds them
  EXPECT_TRUE(std::equal(exact.begin(), exact.begin() + 11 * V, dropped.begin()));
  EXPECT_FALSE(
      std::equal(exact.begin() + 11 * V, exact.begin() + 12 * V, dropped.begin() + 11 * V));
}

TEST(DroppingCache, BudgetsTooSmallAreRefused) {
  const GPT model = tang::testing::random_model(10);
  EXPECT_THROW(DroppingCache(model.config(), {KeepRule::kWindow, 0}), UserError);
  EXPECT_THROW(DroppingCache(model.config(), {KeepRule::kSinks, 3}), UserError);
  // no room left for the newest position: sinks that fill the budget, heavy hitters at 1
  EXPECT_THROW(DroppingCache(model.config(), {KeepRule::kSinks, 4}), UserError);
  EXPECT_THROW(DroppingCache(model.config(), {KeepRule::kHeavy, 1}), UserError);
  EXPECT_NO_THROW(DroppingCache(model.config(), {KeepRule::kHeavy, 2}));
  EXPECT_THROW(parse_keep_rule("sink"), UserError);
}

TEST(BudgetRuns, TextsAndMatches) {
  const std::vector<TokenId> stream = random_text(100, 50, 8);
  const auto texts = consecutive_texts(stream, 30, 5);
  ASSERT_EQ(texts.size(), 3u);  // 100 / 30
  EXPECT_EQ(texts[2].front(), stream[60]);
  const std::vector<TokenId> a = {1, 2, 3, 4}, b = {1, 2, 5, 4};
  EXPECT_EQ(matching_prefix(a, b), 2u);
  EXPECT_EQ(matching_prefix(a, a), 4u);
}

// A learner's version that is right but for ties: on a tie the newer stays. On
// the lesson's real attention sums it matches the reference on every call.
std::vector<std::size_t> newer_stays_on_a_tie(std::span<const float> received, std::size_t budget,
                                              std::size_t sinks, std::size_t window) {
  const std::size_t n = received.size();
  std::vector<std::size_t> kept(n);
  std::iota(kept.begin(), kept.end(), std::size_t{0});
  if (n <= budget) return kept;
  std::vector<std::size_t> middle(kept.begin() + static_cast<std::ptrdiff_t>(sinks),
                                  kept.end() - static_cast<std::ptrdiff_t>(window));
  std::stable_sort(middle.begin(), middle.end(), [&](std::size_t a, std::size_t b) {
    return received[a] > received[b] || (received[a] == received[b] && a > b);
  });
  middle.resize(budget - sinks - window);
  kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(sinks),
             kept.end() - static_cast<std::ptrdiff_t>(window));
  kept.insert(kept.end(), middle.begin(), middle.end());
  std::sort(kept.begin(), kept.end());
  return kept;
}

struct YoursThirteen : ::testing::Test {
  ~YoursThirteen() override { tang::choose_exercise_code(""); }
};

TEST_F(YoursThirteen, TheCasesReportAWrongTieRule) {
  std::ostringstream notes;
  tang::choose_exercise_code("13", true, &notes);
  static tang::ExerciseSwitch use("13", "positions_to_keep, newer on a tie");
  check_keep_rule_cases(use, newer_stays_on_a_tie);
  EXPECT_NE(notes.str().find("a case of the rule, a tie"), std::string::npos) << notes.str();
  EXPECT_NE(notes.str().find("yours position 3, the reference's position 1"), std::string::npos)
      << notes.str();
  EXPECT_NE(tang::exercise_summary().find("(positions_to_keep, newer on a tie): yours matched the "
                                          "reference on 5 calls, then differed at call 6"),
            std::string::npos)
      << tang::exercise_summary();
}

TEST_F(YoursThirteen, TheReferenceMatchesEveryCase) {
  std::ostringstream notes;
  tang::choose_exercise_code("13", true, &notes);
  static tang::ExerciseSwitch use("13", "positions_to_keep, the reference");
  check_keep_rule_cases(use, tang::reference::positions_to_keep);
  EXPECT_EQ(notes.str(), "");
  EXPECT_NE(tang::exercise_summary().find("(positions_to_keep, the reference): yours matched the "
                                          "reference on all 6 calls"),
            std::string::npos)
      << tang::exercise_summary();
}

}  // namespace
