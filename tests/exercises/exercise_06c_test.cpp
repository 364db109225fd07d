// exercise_06c_test: EXERCISE 06c, the cost model of the KV cache
// (lessons/06_kvcache/exercise/cost_model.cpp).
//
//   ctest --preset yours -L '^yours_06c$'    your code
//   ctest --preset release -L exercise_06c    the reference solution
//
// Costs are given, not timed: the tests check the arithmetic the contract
// states, exactly (lesson_06_kvcache prints the predictions next to timings).

#include <gtest/gtest.h>

#include <stdexcept>

#include "06_kvcache/exercise/cost_model.hpp"

namespace {

using tang::positions_with_cache;
using tang::positions_without_cache;
using tang::predicted_speedup;

TEST(Exercise06c, PositionsWithoutTheCacheAddUpEveryWindow) {
  EXPECT_EQ(positions_without_cache(1, 128), 1u) << "the first step runs the newline alone";
  EXPECT_EQ(positions_without_cache(4, 128), 10u) << "1 + 2 + 3 + 4 positions";
  EXPECT_EQ(positions_without_cache(120, 128), 7260u) << "n (n + 1) / 2 for n = 120";
  EXPECT_EQ(positions_without_cache(0, 128), 0u) << "no characters, no positions";
}

TEST(Exercise06c, TheWindowStopsGrowingAtTheContext) {
  // block_size 3: windows of 1, 2, 3, 3, 3 positions
  EXPECT_EQ(positions_without_cache(5, 3), 12u)
      << "past the context the window slides: at most block_size positions a step";
  EXPECT_EQ(positions_without_cache(200, 128), 128u * 129u / 2u + 72u * 128u)
      << "200 characters, context 128: 1 + 2 + ... + 128, then 72 windows of 128";
}

TEST(Exercise06c, WithTheCacheEveryStepIsOnePosition) {
  EXPECT_EQ(positions_with_cache(1), 1u) << "with the cache, one position a step";
  EXPECT_EQ(positions_with_cache(120), 120u) << "with the cache, one position a step";
}

TEST(Exercise06c, PredictedSpeedupOfSmallCases) {
  // t1 = 1, b = 0.5, n = 4: steps cost 1, 1.5, 2, 2.5 = 7 without the cache, 4 with it
  EXPECT_DOUBLE_EQ(predicted_speedup(4, 1.0, 0.5, 128), 7.0 / 4.0)
      << "n = 4, t1 = 1, b = 0.5: without the cache 1 + 1.5 + 2 + 2.5 = 7, with it 4 x 1";
  EXPECT_DOUBLE_EQ(predicted_speedup(1, 2.0, 5.0, 128), 1.0) << "one step is the same both ways";
  EXPECT_DOUBLE_EQ(predicted_speedup(10, 3.0, 0.0, 128), 1.0)
      << "if more positions cost nothing (b = 0), the cache saves nothing";
  // b = t1: the cost is the number of positions, so the ratio is positions / n
  EXPECT_DOUBLE_EQ(predicted_speedup(120, 1.0, 1.0, 128), 7260.0 / 120.0)
      << "b = t1: each step costs its number of positions, so 7260 positions / 120";
}

TEST(Exercise06c, TheSpeedupIsOnePlusTheSlopeTimesHalfTheLength) {
  // 1 + (b / t1) (n - 1) / 2 while the text fits the context
  for (std::size_t n : {2u, 32u, 64u, 120u}) {
    const double expected = 1.0 + (0.4 / 0.2) * static_cast<double>(n - 1) / 2.0;
    EXPECT_NEAR(predicted_speedup(n, 0.2, 0.4, 128), expected, 1e-12) << "n = " << n;
  }
}

TEST(Exercise06c, PastTheContextTheWindowSlides) {
  // block 2, t1 = 1, b = 1: steps of 1, 2, 2 positions -> (1 + 2 + 2) / 3
  EXPECT_DOUBLE_EQ(predicted_speedup(3, 1.0, 1.0, 2), 5.0 / 3.0)
      << "context 2, t1 = b = 1: steps of 1, 2, 2 positions (the window slides), 5 / 3";
}

TEST(Exercise06c, BadCostsAreErrors) {
  EXPECT_THROW(predicted_speedup(0, 1.0, 0.5, 128), std::invalid_argument) << "n = 0";
  EXPECT_THROW(predicted_speedup(10, 0.0, 0.5, 128), std::invalid_argument) << "t1 = 0";
  EXPECT_THROW(predicted_speedup(10, -1.0, 0.5, 128), std::invalid_argument) << "t1 < 0";
  EXPECT_THROW(predicted_speedup(10, 1.0, -0.1, 128), std::invalid_argument) << "b < 0";
}

}  // namespace
