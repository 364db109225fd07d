// exercise_13_test: EXERCISE 13, the positions a cache on a budget keeps
// (lessons/13_cache_budget/exercise/positions_to_keep.cpp).
//
//   ctest --preset yours -L '^yours_13$'     your code
//   ctest --preset release -L exercise_13     the reference solution
//
// Each rule of the comment on its own, on lists small enough to check by eye:
// nothing over budget, the window, the sinks, the heavy hitters, ties, the
// order of the answer, bad arguments.

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "13_cache_budget/exercise/positions_to_keep.hpp"

namespace {

using Kept = std::vector<std::size_t>;
using tang::positions_to_keep;

TEST(Exercise13, WithinTheBudgetEveryPositionStays) {
  const std::vector<float> received = {0.5f, 0.1f, 0.2f};
  EXPECT_EQ(positions_to_keep(received, 3, 0, 3), (Kept{0, 1, 2}));
  EXPECT_EQ(positions_to_keep(received, 8, 0, 4), (Kept{0, 1, 2}));
  EXPECT_EQ(positions_to_keep({}, 4, 0, 2), Kept{});
}

TEST(Exercise13, AWindowKeepsTheNewestWhateverTheyDrew) {
  const std::vector<float> received = {9, 9, 9, 0, 0, 0};
  EXPECT_EQ(positions_to_keep(received, 3, 0, 3), (Kept{3, 4, 5}));
}

TEST(Exercise13, SinksKeepTheOldestAndTheWindowTheNewest) {
  const std::vector<float> received = {0, 0, 5, 5, 5, 0, 0};
  EXPECT_EQ(positions_to_keep(received, 4, 2, 2), (Kept{0, 1, 5, 6}));
}

TEST(Exercise13, TheRestOfTheBudgetGoesToWhatDrewTheMost) {
  //                                    0     1     2     3     4     5     6     7
  const std::vector<float> received = {0.1f, 3.0f, 0.2f, 2.0f, 0.3f, 5.0f, 0.0f, 0.0f};
  // window 2 keeps 6, 7; the other 3 places go to 5 (5.0), 1 (3.0), 3 (2.0)
  EXPECT_EQ(positions_to_keep(received, 5, 0, 2), (Kept{1, 3, 5, 6, 7}));
  // with a sink: 0 stays, then 2 places: 5 and 1
  EXPECT_EQ(positions_to_keep(received, 5, 1, 2), (Kept{0, 1, 5, 6, 7}));
}

TEST(Exercise13, TheWindowIsNotCountedTwice) {
  // 6 drew the most, but the window keeps it anyway: the heavy places go to the next ones
  const std::vector<float> received = {1.0f, 0.0f, 2.0f, 0.0f, 0.0f, 0.0f, 9.0f};
  EXPECT_EQ(positions_to_keep(received, 3, 0, 1), (Kept{0, 2, 6}));
}

TEST(Exercise13, OnATieTheOlderStays) {
  const std::vector<float> received = {0.0f, 1.0f, 1.0f, 1.0f, 0.0f};
  EXPECT_EQ(positions_to_keep(received, 2, 0, 1), (Kept{1, 4}));
  EXPECT_EQ(positions_to_keep(received, 3, 0, 1), (Kept{1, 2, 4}));
}

TEST(Exercise13, TheAnswerIsInIncreasingOrderAndExactlyTheBudget) {
  std::vector<float> received(40);
  for (std::size_t i = 0; i < received.size(); ++i)
    received[i] = static_cast<float>((i * 17) % 11);  // heavy ones scattered
  const Kept kept = positions_to_keep(received, 16, 4, 6);
  ASSERT_EQ(kept.size(), 16u);
  for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1], kept[i]);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(kept[i], i);            // the sinks
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(kept[10 + i], 34 + i);  // the window
}

TEST(Exercise13, BadArgumentsAreRefused) {
  const std::vector<float> received(10, 1.0f);
  EXPECT_THROW(positions_to_keep(received, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(positions_to_keep(received, 4, 2, 3), std::invalid_argument);
  // wrong whatever is held: also when nothing needs to go
  const std::vector<float> two = {1.0f, 2.0f};
  EXPECT_THROW(positions_to_keep(two, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(positions_to_keep(two, 4, 3, 3), std::invalid_argument);
}

}  // namespace
