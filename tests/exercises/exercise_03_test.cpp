// exercise_03_test: EXERCISE 03, top-p (nucleus) filtering
// (lessons/03_topk_topp/exercise/top_p.cpp).
//
//   ctest --preset learner -L exercise_03     your code
//   ctest --preset release -L exercise_03     the reference solution
//
// Tiny hand-made distributions with answers worked out on paper (values chosen
// to be exact in float), then the lesson's top_p_filter on random ones.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "exercise/top_p.hpp"
#include "next_char.hpp"
#include "rng.hpp"
#include "top_k_top_p.hpp"

namespace {

using tang::mine::top_p_filter;

// A number as a person writes it (gtest's messages would print 0.15f as 0.15000000596046448).
std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

std::string show(const std::vector<float>& v) {
  std::ostringstream out;
  out << "(";
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  return out.str() + ")";
}

// Runs your filter on `input` and compares with `expected`, element by element.
void expect_filtered(const std::vector<float>& input, float p, const std::vector<float>& expected,
                     const std::string& why) {
  std::vector<float> probabilities = input;
  top_p_filter(probabilities, p);
  bool same = probabilities.size() == expected.size();
  for (std::size_t i = 0; same && i < expected.size(); ++i) {
    same = std::abs(probabilities[i] - expected[i]) <= 1e-6f;
  }
  if (!same) {
    ADD_FAILURE() << "top_p_filter" << show(input) << " with p = " << num(p) << " should give "
                  << show(expected) << ", yours gave " << show(probabilities) << ": " << why;
  }
}

TEST(Exercise03, KeepsTheMostLikelyUntilTheTotalReachesP) {
  expect_filtered({0.5f, 0.3f, 0.2f}, 0.75f, {0.625f, 0.375f, 0.0f},
                  "0.5 alone is below 0.75, 0.5 + 0.3 reaches it: keep ids 0 and 1, then divide "
                  "by their sum 0.8");
  expect_filtered({0.5f, 0.3f, 0.2f}, 0.4f, {1.0f, 0.0f, 0.0f},
                  "0.5 alone already reaches 0.4: keep only id 0, renormalised to 1");
}

TEST(Exercise03, ReachingPExactlyIsEnough) {
  expect_filtered({0.5f, 0.25f, 0.25f}, 0.75f, {2.0f / 3.0f, 1.0f / 3.0f, 0.0f},
                  "0.5 + 0.25 = 0.75 reaches p = 0.75 exactly (total >= p), so the nucleus "
                  "stops there; id 2 ties with id 1 but ranks after it (smaller id first)");
  expect_filtered({0.25f, 0.25f, 0.25f, 0.25f}, 0.5f, {0.5f, 0.5f, 0.0f, 0.0f},
                  "four equal probabilities rank by id; 0.25 + 0.25 reaches 0.5: keep ids 0 and 1");
}

TEST(Exercise03, TheCharacterThatCrossesPIsKept) {
  expect_filtered({0.25f, 0.25f, 0.25f, 0.25f}, 0.6f, {1.0f / 3, 1.0f / 3, 1.0f / 3, 0.0f},
                  "0.25 + 0.25 = 0.5 is below 0.6; the third character takes the total to 0.75, "
                  "past p, and is kept (up to and INCLUDING the first that reaches p)");
}

TEST(Exercise03, RanksByProbabilityNotById) {
  expect_filtered({0.1f, 0.6f, 0.3f}, 0.7f, {0.0f, 2.0f / 3.0f, 1.0f / 3.0f},
                  "ranked: id 1 (0.6), id 2 (0.3), id 0 (0.1); 0.6 is below 0.7, 0.9 reaches it: "
                  "keep ids 1 and 2, divide by 0.9");
  expect_filtered({0.1f, 0.6f, 0.3f}, 0.05f, {0.0f, 1.0f, 0.0f},
                  "the most likely character alone (id 1, 0.6) already reaches 0.05");
}

TEST(Exercise03, PEqualToOneChangesNothing) {
  expect_filtered({0.1f, 0.6f, 0.3f}, 1.0f, {0.1f, 0.6f, 0.3f}, "p = 1 keeps every character");
  expect_filtered({0.0f, 0.5f, 0.5f}, 1.0f, {0.0f, 0.5f, 0.5f},
                  "p = 1 keeps every character, zeros included");
}

TEST(Exercise03, SameResultAsTheLessonsFilter) {
  tang::Rng rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> probabilities(300);
    const float spread = trial % 2 == 0 ? 1.0f : 4.0f;
    for (float& z : probabilities) z = spread * rng.normal();
    tang::softmax_in_place(probabilities);
    const float p = std::vector<float>{0.1f, 0.5f, 0.8f, 0.9f, 0.95f}[trial % 5];

    std::vector<float> reference = probabilities, yours = probabilities;
    std::vector<tang::NucleusKey> keys;
    tang::top_p_filter(reference, p, keys);
    top_p_filter(yours, p);

    std::size_t kept_reference = 0, kept_yours = 0, worst = 0;
    float yours_total = 0.0f;
    for (std::size_t i = 0; i < reference.size(); ++i) {
      kept_reference += reference[i] > 0.0f;
      kept_yours += yours[i] > 0.0f;
      yours_total += yours[i];
      if (std::abs(yours[i] - reference[i]) > std::abs(yours[worst] - reference[worst])) worst = i;
    }
    ASSERT_EQ(kept_yours, kept_reference)
        << "random distribution #" << trial << " (300 characters), p = " << num(p)
        << ": the nucleus has " << kept_reference << " characters, yours kept " << kept_yours;
    ASSERT_NEAR(yours[worst], reference[worst], 1e-6f)
        << "random distribution #" << trial << ", p = " << num(p) << ": character " << worst
        << " should have probability " << num(reference[worst]) << " after renormalising";
    ASSERT_NEAR(yours_total, 1.0f, 1e-5f)
        << "random distribution #" << trial << ": the kept probabilities must sum to 1 again";
  }
}

}  // namespace
