// exercise_02_test: EXERCISE 02, sampling with temperature from one uniform coin
// (lessons/02_temperature/exercise/sample_with_temperature.cpp).
//
//   ctest --preset learner -L exercise_02     your code
//   ctest --preset release -L exercise_02     the reference solution
//
// Small hand-made distributions whose answers can be worked out on paper, then
// the lesson's own sampler as a reference on random logits.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "exercise/sample_with_temperature.hpp"
#include "rng.hpp"
#include "temperature.hpp"

namespace {

using tang::TokenId;
using tang::mine::sample_with_temperature;

constexpr float kInf = std::numeric_limits<float>::infinity();

// A number as a person writes it (gtest's messages would print 0.15f as 0.15000000596046448).
std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// Logits whose softmax at T = 1 is exactly `probabilities` (up to rounding).
std::vector<float> logits_of(const std::vector<float>& probabilities) {
  std::vector<float> logits;
  for (float p : probabilities) logits.push_back(p > 0.0f ? std::log(p) : -kInf);
  return logits;
}

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

TEST(Exercise02, SameAnswerAsTheLessonsSampler) {
  // The lesson's tang::sample_with_temperature draws its coin from an Rng; give
  // yours the same coin and the answers must agree.
  tang::Rng make(11);
  int disagreements = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::vector<float> logits(50);
    for (float& z : logits) z = 3.0f * make.normal();
    const float temperature = std::vector<float>{0.3f, 0.7f, 1.0f, 1.5f, 3.0f}[seed % 5];
    tang::Rng rng(seed), coin_rng(seed);
    std::vector<float> copy = logits;
    const TokenId reference = tang::sample_with_temperature(copy, temperature, rng);
    const TokenId yours = sample_with_temperature(logits, temperature, coin_rng.uniform());
    if (yours != reference) {
      ++disagreements;
      ADD_FAILURE() << "random logits #" << seed << " at T = " << num(temperature)
                    << ": the lesson's sampler picks id " << reference << ", yours picks " << yours;
    }
  }
  EXPECT_EQ(disagreements, 0);
}

}  // namespace
