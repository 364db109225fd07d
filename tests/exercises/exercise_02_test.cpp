// exercise_02_test: EXERCISE 02, drawing one character from one uniform coin,
// with and without temperature
// (lessons/02_temperature/exercise/sample_with_temperature.cpp).
//
//   ctest --preset yours -L '^yours_02$'     your code
//   ctest --preset release -L exercise_02     the reference solution
//
// sample_from first (the walk over the running total), then sample_with_temperature:
// small hand-made distributions whose answers can be worked out on paper, then a
// reference written here, from the exercise's text, on random logits.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "number_text.hpp"
#include "rng.hpp"
#include "sampling.hpp"

namespace {

using tang::testing::num;

using tang::sample_from;
using tang::sample_with_temperature;
using tang::TokenId;

constexpr float kInf = std::numeric_limits<float>::infinity();

std::string show(const std::vector<float>& v) {
  std::ostringstream out;
  out << "(";
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  return out.str() + ")";
}

// Logits whose softmax at T = 1 is exactly `probabilities` (up to rounding).
std::vector<float> logits_of(const std::vector<float>& probabilities) {
  std::vector<float> logits;
  for (float p : probabilities) logits.push_back(p > 0.0f ? std::log(p) : -kInf);
  return logits;
}

// The exercise's text, written out: walk the ids, add up in a float, return
// the first id whose running total is above the coin; else the last id with p > 0.
TokenId reference_sample_from(const std::vector<float>& p, float coin) {
  float total = 0.0f;
  TokenId last = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0.0f) continue;
    total += p[i];
    last = static_cast<TokenId>(i);
    if (total > coin) return last;
  }
  return last;
}

// --- sample_from ------------------------------------------------------------------

void expect_draw(const std::vector<float>& p, float coin, TokenId expected,
                 const std::string& why) {
  const TokenId got = sample_from(p, coin);
  EXPECT_EQ(got, expected) << "sample_from" << show(p) << " with coin " << num(coin)
                           << " should give id " << expected << ", yours gave " << got << ": "
                           << why;
}

TEST(Exercise02, SampleFromWalksTheRunningTotal) {
  const std::vector<float> p = {0.1f, 0.2f, 0.3f, 0.4f};  // running totals 0.1, 0.3, 0.6, 1.0
  const std::string why =
      "the running totals are 0.1, 0.3, 0.6, 1.0; the answer is the first id "
      "whose total is greater than the coin";
  expect_draw(p, 0.0f, 0, why);
  expect_draw(p, 0.05f, 0, why);
  expect_draw(p, 0.25f, 1, why);
  expect_draw(p, 0.35f, 2, why);
  expect_draw(p, 0.65f, 3, why);
  expect_draw(p, 0.9999f, 3, why);
}

TEST(Exercise02, SampleFromACoinOnABoundaryGoesToTheNextCharacter) {
  // Powers of two: the totals 0.25, 0.5, 1 are exact in float.
  const std::vector<float> p = {0.25f, 0.25f, 0.5f};
  expect_draw(p, std::nextafter(0.25f, 0.0f), 0,
              "the coin is just below 0.25, the total after id 0");
  expect_draw(p, 0.25f, 1,
              "the total after id 0 is exactly 0.25, which is NOT greater than the coin 0.25: "
              "the coin belongs to id 1 (id 0 owns [0, 0.25))");
  expect_draw(p, std::nextafter(0.5f, 0.0f), 1, "the coin is just below 0.5, the total after id 1");
  expect_draw(p, 0.5f, 2, "a coin of exactly 0.5 belongs to id 2 ([0.5, 1))");
  expect_draw(p, std::nextafter(1.0f, 0.0f), 2, "the largest coin below 1 belongs to the last id");
}

TEST(Exercise02, SampleFromNeverPicksAZeroProbability) {
  const std::vector<float> p = {0.0f, 0.5f, 0.0f, 0.0f, 0.5f, 0.0f};
  for (int i = 0; i < 64; ++i) {
    const float coin = static_cast<float>(i) / 64.0f;
    const TokenId id = sample_from(p, coin);
    EXPECT_TRUE(id == 1 || id == 4)
        << "sample_from" << show(p) << " with coin " << num(coin) << " gave id " << id
        << ", which has probability 0: only ids 1 and 4 can be drawn";
  }
  expect_draw(p, 0.0f, 1, "a coin of 0 goes to the first character with p > 0, not to id 0");
  expect_draw(p, 0.5f, 4, "a coin of 0.5 goes to id 4 (id 1 owns [0, 0.5))");
  expect_draw({0.0f, 0.0f, 1.0f}, 0.0f, 2, "only id 2 has a probability");
}

TEST(Exercise02, SampleFromARoundingShortTotalGivesTheLastNonZero) {
  // Adds up to 0.9, not 1: a coin above the total must still pick a possible
  // character, the last one that has probability, never the zeros after it.
  expect_draw({0.3f, 0.3f, 0.3f, 0.0f, 0.0f}, 0.95f, 2,
              "the total only reaches 0.9 (rounding), below the coin: return the LAST id with "
              "p > 0 (id 2), never one of the zeros after it");
  expect_draw({0.3f, 0.3f, 0.3f, 0.0f, 0.0f}, std::nextafter(1.0f, 0.0f), 2,
              "the total only reaches 0.9, the coin is 0.99999994: the last id with p > 0");
  expect_draw({0.0f, 0.6f, 0.0f, 0.3999f, 0.0f}, 0.99995f, 3,
              "the total reaches 0.9999, below the coin: the last id with p > 0 is 3");
}

// The distribution is the first ids of a longer buffer: the ids past its end must not
// count. Here they would complete the total and move the draw.
TEST(Exercise02, SampleFromReadsNothingPastTheEndOfItsSpan) {
  const std::vector<float> buffer = {0.3f, 0.3f, 0.3f, 0.5f, 0.5f};
  const std::span<const float> p = std::span(buffer).first(3);  // (0.3, 0.3, 0.3)
  for (const float coin : {0.95f, 0.99f}) {
    const TokenId got = sample_from(p, coin);
    EXPECT_EQ(got, 2) << "sample_from(0.3, 0.3, 0.3) with coin " << num(coin)
                      << ": the total only reaches 0.9, so the answer is the last id, 2; yours "
                         "gave "
                      << got
                      << ". The span ends at id 2 but the buffer it lies in goes on with 0.5, "
                         "0.5: walk probabilities.size() ids, never past the span's end";
  }
}

TEST(Exercise02, SampleFromAgreesWithTheTextOnRandomDistributions) {
  tang::Rng rng(21);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<float> p(1 + rng.below(40));
    for (float& x : p) x = rng.uniform() < 0.3f ? 0.0f : rng.uniform();
    p[rng.below(p.size())] = 0.5f;  // at least one above 0
    float total = 0.0f;
    for (float x : p) total += x;
    for (float& x : p) x /= total;
    for (int draw = 0; draw < 10; ++draw) {
      const float coin = draw == 9 ? std::nextafter(1.0f, 0.0f) : rng.uniform();
      const TokenId expected = reference_sample_from(p, coin);
      const TokenId got = sample_from(p, coin);
      ASSERT_EQ(got, expected) << "random distribution #" << trial << " of " << p.size()
                               << " characters, coin " << num(coin) << ": the first id whose "
                               << "running total is greater than the coin is " << expected
                               << ", yours gave " << got;
    }
  }
}

// --- sample_with_temperature ---------------------------------------------------------

TEST(Exercise02, TemperatureZeroIsGreedy) {
  const std::vector<float> logits = {0.5f, 2.0f, -1.0f, 1.5f};
  for (float coin : {0.0f, 0.5f, 0.99f}) {
    EXPECT_EQ(sample_with_temperature(logits, 0.0f, coin), 1)
        << "T = 0 must return the id of the largest logit (id 1, logit 2.0) whatever the coin "
           "(coin "
        << num(coin) << ")";
  }
  const std::vector<float> tie = {1.0f, 3.0f, 3.0f};
  EXPECT_EQ(sample_with_temperature(tie, 0.0f, 0.7f), 1)
      << "T = 0 with two equal largest logits (ids 1 and 2) must return the smaller id, 1";
}

TEST(Exercise02, TheCoinWalksTheRunningTotal) {
  // p = (0.1, 0.2, 0.7): running totals 0.1, 0.3, 1.0
  const std::vector<float> logits = logits_of({0.1f, 0.2f, 0.7f});
  const struct {
    float coin;
    TokenId expected;
  } cases[] = {{0.0f, 0}, {0.05f, 0}, {0.15f, 1}, {0.29f, 1}, {0.31f, 2}, {0.9f, 2}, {0.999f, 2}};
  for (const auto& c : cases) {
    EXPECT_EQ(sample_with_temperature(logits, 1.0f, c.coin), c.expected)
        << "p = (0.1, 0.2, 0.7), T = 1, coin " << num(c.coin)
        << ": the running totals are 0.1, 0.3, "
        << "1.0, and the answer is the first id whose total is greater than the coin";
  }
}

TEST(Exercise02, ACoinOnABoundaryGoesToTheNextCharacter) {
  // logits (0, 0): p = (0.5, 0.5) exactly
  const std::vector<float> logits = {0.0f, 0.0f};
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, 0.5f), 1)
      << "p = (0.5, 0.5), coin exactly 0.5: the total after id 0 is 0.5, which is not greater "
         "than the coin, so the answer is id 1";
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, 0.49f), 0)
      << "p = (0.5, 0.5), coin 0.49: the total after id 0 (0.5) is greater, so id 0";
}

TEST(Exercise02, TemperatureReshapesTheDistribution) {
  // logits (0, ln 3): T = 1 gives p0 = 0.25; T = 0.5 gives p0 = 1/(1+9) = 0.1;
  // T = 2 gives p0 = 1/(1+sqrt 3) = 0.366.
  const std::vector<float> logits = {0.0f, std::log(3.0f)};
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, 0.2f), 0)
      << "logits (0, ln 3), T = 1: p = (0.25, 0.75), so coin 0.2 picks id 0";
  EXPECT_EQ(sample_with_temperature(logits, 0.5f, 0.2f), 1)
      << "logits (0, ln 3), T = 0.5: the logits are divided by T, p = (0.1, 0.9), so coin 0.2 "
         "picks id 1";
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, 0.3f), 1)
      << "logits (0, ln 3), T = 1: p = (0.25, 0.75), so coin 0.3 picks id 1";
  EXPECT_EQ(sample_with_temperature(logits, 2.0f, 0.3f), 0)
      << "logits (0, ln 3), T = 2: p = (0.366, 0.634), so coin 0.3 picks id 0";
}

TEST(Exercise02, HugeLogitsDoNotOverflow) {
  // exp(1000) is infinite in float: subtract the largest logit first.
  const std::vector<float> logits = {1000.0f, 1001.0f};  // p = (0.269, 0.731)
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, 0.1f), 0)
      << "logits (1000, 1001): p = (0.269, 0.731), coin 0.1 picks id 0 (subtract the largest "
         "logit before exp, or exp overflows)";
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, 0.5f), 1)
      << "logits (1000, 1001): p = (0.269, 0.731), coin 0.5 picks id 1";
}

TEST(Exercise02, BannedCharactersAreNeverDrawn) {
  const std::vector<float> logits = {-kInf, 0.0f, -kInf, 0.0f, -kInf};  // p = (0, .5, 0, .5, 0)
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, 0.0f), 1)
      << "logits (-inf, 0, -inf, 0, -inf): p = (0, 0.5, 0, 0.5, 0); coin 0 picks id 1, the first "
         "character with a non-zero probability";
  EXPECT_EQ(sample_with_temperature(logits, 1.5f, 0.75f), 3)
      << "logits (-inf, 0, -inf, 0, -inf) at T = 1.5: coin 0.75 picks id 3";
  const float almost_one = std::nextafter(1.0f, 0.0f);
  EXPECT_EQ(sample_with_temperature(logits, 1.0f, almost_one), 3)
      << "coin 0.99999994 (the largest float below 1) with p = (0, 0.5, 0, 0.5, 0): if rounding "
         "leaves the total below the coin, return the LAST character with p > 0 (id 3), never a "
         "banned one";
}

TEST(Exercise02, LogitsAreReadOnly) {
  const std::vector<float> logits = {0.3f, -1.0f, 2.0f, -kInf};
  std::vector<float> copy = logits;
  sample_with_temperature(copy, 0.7f, 0.4f);
  EXPECT_EQ(copy, logits) << "sample_with_temperature must work on a copy: logits are read only";
}

// The logits are the first ids of a longer buffer whose next logit is the largest:
// neither the largest logit nor the softmax may look past the span's end.
TEST(Exercise02, ReadsNothingPastTheEndOfTheLogits) {
  const std::vector<float> buffer = {0.0f, std::log(3.0f), 100.0f, 50.0f};
  const std::span<const float> logits = std::span(buffer).first(2);  // p = (0.25, 0.75)
  const std::string past =
      "; the span ends at id 1, but the buffer it lies in goes on with the logits 100, 50: "
      "look at logits.size() ids only, never past the span's end";
  TokenId got = sample_with_temperature(logits, 0.0f, 0.5f);
  EXPECT_EQ(got, 1) << "logits (0, ln 3) at T = 0: the largest is id 1, yours gave " << got << past;
  got = sample_with_temperature(logits, 1.0f, 0.2f);
  EXPECT_EQ(got, 0) << "logits (0, ln 3) at T = 1: p = (0.25, 0.75), coin 0.2 picks id 0, yours "
                       "gave "
                    << got << past;
  got = sample_with_temperature(logits, 1.0f, 0.3f);
  EXPECT_EQ(got, 1) << "logits (0, ln 3) at T = 1: p = (0.25, 0.75), coin 0.3 picks id 1, yours "
                       "gave "
                    << got << past;
}

TEST(Exercise02, FrequenciesFollowTheProbabilities) {
  // 1000 evenly spaced coins: each id is chosen in proportion to its probability.
  const std::vector<float> logits = logits_of({0.1f, 0.2f, 0.3f, 0.4f});
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 1000; ++i) {
    const float coin = (static_cast<float>(i) + 0.5f) / 1000.0f;
    const TokenId id = sample_with_temperature(logits, 1.0f, coin);
    ASSERT_TRUE(id >= 0 && id < 4) << "coin " << num(coin) << " gave id " << id << ", outside 0..3";
    ++counts[static_cast<std::size_t>(id)];
  }
  const int expected[] = {100, 200, 300, 400};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(counts[i], expected[i], 1)
        << "p = (0.1, 0.2, 0.3, 0.4) and 1000 evenly spaced coins: id " << i << " should be drawn "
        << expected[i] << " times";
  }
}

TEST(Exercise02, SameAnswerAsTheExercisesTextOnRandomLogits) {
  // The exercise's steps written out here: divide by T, softmax_in_place, walk the totals.
  tang::Rng make(11);
  int disagreements = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::vector<float> logits(50);
    for (float& z : logits) z = 3.0f * make.normal();
    const float temperature = std::vector<float>{0.3f, 0.7f, 1.0f, 1.5f, 3.0f}[seed % 5];
    const float coin = tang::Rng(seed).uniform();
    std::vector<float> probabilities = logits;
    for (float& z : probabilities) z /= temperature;
    tang::softmax_in_place(probabilities);
    const TokenId reference = reference_sample_from(probabilities, coin);
    const TokenId yours = sample_with_temperature(logits, temperature, coin);
    if (yours != reference) {
      ++disagreements;
      ADD_FAILURE() << "random logits #" << seed << " at T = " << num(temperature) << ", coin "
                    << num(coin) << ": softmax(logits / T) and the walk pick id " << reference
                    << ", yours picks " << yours;
    }
  }
  EXPECT_EQ(disagreements, 0);
}

}  // namespace
