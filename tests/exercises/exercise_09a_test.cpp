// exercise_09a_test: EXERCISE 09a, attention to the same column of the previous
// line (lessons/09_inside/exercise/column_attention.cpp).
//
//   ctest --preset yours -L '^yours_09a$'    your code
//   ctest --preset release -L exercise_09a    the reference solution
//
// Hand-made attention on hand-made line structures, where the answer is known
// by counting, then uniform attention, then random ones against a brute force
// written another way (position by coordinates).

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "09_inside/exercise/column_attention.hpp"

namespace {

using tang::PatternSum;
using tang::previous_line_column;

// "\n白日依山尽，黄河入海流。": ⏎, line 0 (5), ，, line 1 (5), 。
const std::vector<int> kLine = {-1, 0, 0, 0, 0, 0, -1, 1, 1, 1, 1, 1, -1};
const std::vector<int> kColumn = {-1, 0, 1, 2, 3, 4, -1, 0, 1, 2, 3, 4, -1};
constexpr std::size_t kT = 13;

// Every position t puts all its weight on position `target(t)` (t itself if none given).
template <class Target>
std::vector<float> one_hot(std::size_t T, Target target) {
  std::vector<float> w(T * T, 0.0f);
  for (std::size_t t = 0; t < T; ++t) w[t * T + target(t)] = 1.0f;
  return w;
}

TEST(Exercise09a, AHeadOnTheParallelPositionScoresOne) {
  // line 1 column j (position 7 + j) attends to line 0 column j (position 1 + j)
  const auto w = one_hot(kT, [](std::size_t t) { return t >= 7 && t <= 11 ? t - 6 : t; });
  const PatternSum s = previous_line_column(w, kT, kLine, kColumn);
  EXPECT_EQ(s.queries, 5u) << "黄河入海流: five characters with a previous line";
  EXPECT_DOUBLE_EQ(s.weight, 5.0) << "each puts all its weight on its parallel position";
}

TEST(Exercise09a, AHeadOnThePreviousCharacterScoresZero) {
  const auto w = one_hot(kT, [](std::size_t t) { return t == 0 ? 0 : t - 1; });
  const PatternSum s = previous_line_column(w, kT, kLine, kColumn);
  EXPECT_EQ(s.queries, 5u);
  EXPECT_DOUBLE_EQ(s.weight, 0.0) << "the previous character is not the previous line's column";
}

TEST(Exercise09a, TheFirstLineTheNewlineAndTheMarksNeverCount) {
  std::vector<float> w(kT * kT, 0.0f);
  for (std::size_t t = 0; t < kT; ++t) w[t * kT + 0] = 1.0f;  // all on the newline
  const PatternSum s = previous_line_column(w, kT, kLine, kColumn);
  EXPECT_EQ(s.queries, 5u) << "only the second line's characters have a previous line";
  EXPECT_DOUBLE_EQ(s.weight, 0.0);
}

TEST(Exercise09a, UniformAttentionGivesOneOverThePositionsSeen) {
  std::vector<float> w(kT * kT, 0.0f);
  for (std::size_t t = 0; t < kT; ++t)
    for (std::size_t s = 0; s <= t; ++s) w[t * kT + s] = 1.0f / static_cast<float>(t + 1);
  const PatternSum s = previous_line_column(w, kT, kLine, kColumn);
  double expected = 0.0;
  for (std::size_t t = 7; t <= 11; ++t) expected += 1.0f / static_cast<float>(t + 1);
  EXPECT_EQ(s.queries, 5u);
  EXPECT_NEAR(s.weight, expected, 1e-9) << "1/8 + 1/9 + 1/10 + 1/11 + 1/12";
}

TEST(Exercise09a, AShorterPreviousLineLeavesTheLastColumnsOut) {
  // ⏎ a b ， c d e 。: line 1 has a column 2 that line 0 lacks
  const std::vector<int> line = {-1, 0, 0, -1, 1, 1, 1, -1};
  const std::vector<int> column = {-1, 0, 1, -1, 0, 1, 2, -1};
  std::vector<float> w(8 * 8, 0.0f);
  for (std::size_t t = 0; t < 8; ++t) w[t * 8 + t] = 1.0f;
  w[4 * 8 + 4] = 0.0f, w[4 * 8 + 1] = 1.0f;  // c on a
  w[5 * 8 + 5] = 0.5f, w[5 * 8 + 2] = 0.5f;  // d half on b
  const PatternSum s = previous_line_column(w, 8, line, column);
  EXPECT_EQ(s.queries, 2u) << "e (column 2) has no parallel in a two-character line";
  EXPECT_DOUBLE_EQ(s.weight, 1.5);
}

TEST(Exercise09a, AFourLinePoemLooksOneLineUpOnly) {
  // four lines of 2: ⏎ a b ， c d 。 e f ， g h 。
  const std::vector<int> line = {-1, 0, 0, -1, 1, 1, -1, 2, 2, -1, 3, 3, -1};
  const std::vector<int> column = {-1, 0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 1, -1};
  // g (10) attends to a (1), two lines up: not the previous line
  std::vector<float> w(13 * 13, 0.0f);
  for (std::size_t t = 0; t < 13; ++t) w[t * 13 + t] = 1.0f;
  w[10 * 13 + 10] = 0.0f, w[10 * 13 + 1] = 1.0f;
  w[11 * 13 + 11] = 0.0f, w[11 * 13 + 8] = 1.0f;  // h on f: line 2, column 1, the previous line
  const PatternSum s = previous_line_column(w, 13, line, column);
  EXPECT_EQ(s.queries, 6u) << "lines 2, 3 and 4 each have 2 characters with a previous line";
  EXPECT_DOUBLE_EQ(s.weight, 1.0) << "only h's weight on f counts";
}

TEST(Exercise09a, RandomAttentionAgainstCoordinates) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    // a random poem shape: 2 to 8 lines of 1 to 7 characters
    std::vector<int> line = {-1}, column = {-1};
    std::map<std::pair<int, int>, std::size_t> where;
    const int lines = 2 + static_cast<int>(rng() % 7);
    for (int i = 0; i < lines; ++i) {
      const int chars = 1 + static_cast<int>(rng() % 7);
      for (int j = 0; j < chars; ++j) {
        where[{i, j}] = line.size();
        line.push_back(i), column.push_back(j);
      }
      line.push_back(-1), column.push_back(-1);
    }
    const std::size_t T = line.size();
    std::vector<float> w(T * T, 0.0f);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t s = 0; s <= t; ++s) w[t * T + s] = u(rng);
    double weight = 0.0;
    std::size_t queries = 0;
    for (std::size_t t = 0; t < T; ++t) {
      if (line[t] < 1) continue;
      const auto it = where.find({line[t] - 1, column[t]});
      if (it == where.end()) continue;
      weight += w[t * T + it->second];
      ++queries;
    }
    const PatternSum s = previous_line_column(w, T, line, column);
    EXPECT_EQ(s.queries, queries) << "trial " << trial;
    EXPECT_NEAR(s.weight, weight, 1e-9) << "trial " << trial;
  }
}

// The lesson passes one head's (T, T) slice of the (NH, T, T) attention, and the
// poem's coordinates may go on past T: here head 1 (all weights 1) follows head 0, and
// a third line, whose characters would have a previous line, follows position T - 1.
TEST(Exercise09a, ReadsNothingPastTheEndOfTheSpans) {
  const auto head0 = one_hot(kT, [](std::size_t t) { return t >= 7 && t <= 11 ? t - 6 : t; });
  std::vector<float> weights(head0);
  weights.resize(2 * kT * kT, 1.0f);  // head 1
  std::vector<int> line = kLine, column = kColumn;
  for (int j = 0; j < 5; ++j) line.push_back(2), column.push_back(j);  // a third line
  const PatternSum s = previous_line_column(std::span(weights).first(kT * kT), kT,
                                            std::span(line).first(kT), std::span(column).first(kT));
  EXPECT_EQ(s.queries, 5u) << "the spans hold positions 0 .. 12: only 黄河入海流 has a previous "
                              "line. The buffers they lie in go on with a third line and another "
                              "head's weights: read T positions only, never past the spans' ends";
  EXPECT_DOUBLE_EQ(s.weight, 5.0)
      << "each of the five puts all its weight on its parallel position; the weights past the "
         "span's end (another head's) are not this head's";
}

TEST(Exercise09a, MismatchedSizesAreErrors) {
  const std::vector<float> w(kT * kT, 0.0f);
  EXPECT_THROW(previous_line_column(w, kT + 1, kLine, kColumn), std::invalid_argument)
      << "weights must be T x T";
  const std::vector<int> short_line(kT - 1, 0);
  EXPECT_THROW(previous_line_column(w, kT, short_line, kColumn), std::invalid_argument)
      << "one line entry per position";
  EXPECT_THROW(previous_line_column(w, kT, kLine, short_line), std::invalid_argument)
      << "one column entry per position";
}

}  // namespace
