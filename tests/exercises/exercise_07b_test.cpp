// exercise_07b_test: EXERCISE 07b, one step of beam search
// (lessons/07_verse/exercise/beam_step.cpp).
//
//   ctest --preset yours -L '^yours_07b$'     your code
//   ctest --preset release -L exercise_07b     the reference solution
//
// Small hand-made beams whose answer can be read off, the tie rules, masks,
// -infinity, the errors, and random beams against a brute force written here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "07_verse/exercise/beam_step.hpp"

namespace {

using tang::beam_step;
using tang::BeamChoice;
using tang::LogitMask;
using tang::TokenId;

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<LogitMask> all_allowed(std::size_t beams, std::size_t vocab) {
  return std::vector<LogitMask>(beams, LogitMask(vocab));
}

// (beam, token) pairs, for short expectations.
std::vector<std::pair<std::size_t, TokenId>> picks(const std::vector<BeamChoice>& choices) {
  std::vector<std::pair<std::size_t, TokenId>> out;
  for (const BeamChoice& c : choices) out.emplace_back(c.beam, c.token);
  return out;
}

TEST(Exercise07b, KeepsTheBestExtensionsAcrossBeamsBestFirst) {
  const std::vector<double> scores = {-1.0, -3.0};
  const std::vector<std::vector<float>> lp = {{-2.0f, -0.5f, -4.0f}, {-0.1f, -3.0f, -0.2f}};
  const auto got = beam_step(scores, lp, all_allowed(2, 3), 3);
  // beam 0: -3.0 -1.5 -5.0; beam 1: -3.1 -6.0 -3.2
  EXPECT_EQ(picks(got), (std::vector<std::pair<std::size_t, TokenId>>{{0, 1}, {0, 0}, {1, 0}}))
      << "the 3 best (beam, character) pairs, best first: beam 0 + 1 scores -1 - 0.5 = -1.5, "
         "beam 0 + 0 scores -3, beam 1 + 0 scores -3.1 (a beam's score plus the log-probability)";
  ASSERT_EQ(got.size(), 3u) << "width 3 keeps 3 of the 6 extensions";
  EXPECT_DOUBLE_EQ(got[0].score, -1.5) << "the best one's score: -1 (its beam) + -0.5";
  EXPECT_DOUBLE_EQ(got[2].score, -3.0 + static_cast<double>(-0.1f))
      << "the third one's score: -3 (beam 1) + -0.1, added as doubles";
}

TEST(Exercise07b, OneBeamCanGiveAllTheChildren) {
  const std::vector<double> scores = {0.0, -10.0};
  const std::vector<std::vector<float>> lp = {{-1.0f, -2.0f, -3.0f}, {-0.0f, -0.0f, -0.0f}};
  EXPECT_EQ(picks(beam_step(scores, lp, all_allowed(2, 3), 3)),
            (std::vector<std::pair<std::size_t, TokenId>>{{0, 0}, {0, 1}, {0, 2}}))
      << "beam 1 starts at -10, so all three places go to beam 0's characters, best first";
}

TEST(Exercise07b, MasksDecideWhatMayBeAdded) {
  const std::vector<double> scores = {0.0, 0.0};
  const std::vector<std::vector<float>> lp = {{-0.1f, -2.0f, -3.0f}, {-0.2f, -5.0f, -0.3f}};
  std::vector<LogitMask> masks = all_allowed(2, 3);
  masks[0].ban(TokenId{0});
  const TokenId only[] = {2};
  masks[1].allow_only(only);
  EXPECT_EQ(picks(beam_step(scores, lp, masks, 4)),
            (std::vector<std::pair<std::size_t, TokenId>>{{1, 2}, {0, 1}, {0, 2}}))
      << "beam 0 may not add character 0 and beam 1 only character 2: three allowed "
         "extensions, however good the banned ones score";
}

TEST(Exercise07b, TiesGoToTheLowerBeamThenTheLowerToken) {
  const std::vector<double> scores = {-1.0, -1.0};
  const std::vector<std::vector<float>> lp = {{-1.0f, -1.0f}, {-1.0f, -1.0f}};
  EXPECT_EQ(picks(beam_step(scores, lp, all_allowed(2, 2), 3)),
            (std::vector<std::pair<std::size_t, TokenId>>{{0, 0}, {0, 1}, {1, 0}}))
      << "all four extensions score -2: ties go to the lower beam, then the lower character";
}

TEST(Exercise07b, FewerExtensionsThanTheWidthAndNoMinusInfinity) {
  const std::vector<double> scores = {0.0};
  const std::vector<std::vector<float>> lp = {{-kInf, -1.0f, -kInf, -2.0f}};
  EXPECT_EQ(picks(beam_step(scores, lp, all_allowed(1, 4), 8)),
            (std::vector<std::pair<std::size_t, TokenId>>{{0, 1}, {0, 3}}))
      << "width 8 but only two extensions are possible: a log-probability of -inf is never kept";
  const std::vector<std::vector<float>> none = {{-kInf, -kInf}};
  EXPECT_TRUE(beam_step(scores, none, all_allowed(1, 2), 2).empty())
      << "every character has probability 0: nothing to keep";
}

TEST(Exercise07b, MismatchedSizesAndWidthZeroThrow) {
  const std::vector<double> two = {0.0, 0.0};
  const std::vector<std::vector<float>> one_row = {{-1.0f, -1.0f}};
  EXPECT_THROW(beam_step(two, one_row, all_allowed(2, 2), 1), std::invalid_argument);
  const std::vector<double> one = {0.0};
  EXPECT_THROW(beam_step(one, one_row, all_allowed(2, 2), 1), std::invalid_argument);
  EXPECT_THROW(beam_step(one, one_row, all_allowed(1, 3), 1), std::invalid_argument);
  EXPECT_THROW(beam_step(one, one_row, all_allowed(1, 2), 0), std::invalid_argument);
}

// The beams are the first two of longer buffers (as when fewer beams are alive than
// the search has room for): the third beam past their ends scores best of all and must
// not be extended.
TEST(Exercise07b, ExtendsNoBeamPastTheEndOfTheSpans) {
  const std::vector<double> score_buffer = {-1.0, -3.0, 0.0};
  const std::vector<std::vector<float>> lp_buffer = {
      {-2.0f, -0.5f, -4.0f}, {-0.1f, -3.0f, -0.2f}, {-0.01f, -0.02f, -0.03f}};
  const std::vector<LogitMask> mask_buffer = all_allowed(3, 3);
  const auto got = beam_step(std::span(score_buffer).first(2), std::span(lp_buffer).first(2),
                             std::span(mask_buffer).first(2), 3);
  EXPECT_EQ(picks(got), (std::vector<std::pair<std::size_t, TokenId>>{{0, 1}, {0, 0}, {1, 0}}))
      << "two beams (scores -1 and -3): the best extensions are beam 0 + 1, beam 0 + 0, beam 1 + "
         "0. The spans end after beam 1, but the buffers they lie in go on with a beam 2 of "
         "score 0, whose extensions would all beat them: extend scores.size() beams only, never "
         "past the spans' ends";
}

TEST(Exercise07b, RandomBeamsAgreeWithABruteForce) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(-5.0f, 2.0f);
  std::bernoulli_distribution banned(0.3);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t beams = 1 + static_cast<std::size_t>(trial % 5);
    const std::size_t vocab = 2 + static_cast<std::size_t>(trial % 13);
    const std::size_t width = 1 + static_cast<std::size_t>(trial % 7);
    std::vector<double> scores(beams);
    std::vector<std::vector<float>> lp(beams, std::vector<float>(vocab));
    std::vector<LogitMask> masks = all_allowed(beams, vocab);
    std::vector<BeamChoice> all;
    for (std::size_t b = 0; b < beams; ++b) {
      scores[b] = std::round(normal(gen));  // whole numbers: ties happen
      for (std::size_t t = 0; t < vocab; ++t) {
        lp[b][t] = std::round(normal(gen));
        if (banned(gen)) masks[b].ban(static_cast<TokenId>(t));
        if (masks[b].allows(static_cast<TokenId>(t))) {
          all.push_back({b, static_cast<TokenId>(t), scores[b] + lp[b][t]});
        }
      }
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const BeamChoice& x, const BeamChoice& y) { return x.score > y.score; });
    all.resize(std::min(width, all.size()));
    const auto got = beam_step(scores, lp, masks, width);
    ASSERT_EQ(picks(got), picks(all)) << "trial " << trial;
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].score, all[i].score);
  }
}

}  // namespace
