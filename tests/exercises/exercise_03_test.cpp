// exercise_03_test: EXERCISE 03, top-p (nucleus) filtering
// (lessons/03_topk_topp/exercise/top_p.cpp).
//
//   ctest --preset yours -L '^yours_03$'     your code
//   ctest --preset release -L '^exercise_03$'     the reference solution
//
// Tiny hand-made distributions with answers worked out on paper, then the exact
// arithmetic the exercise asks for, bit for bit, against a reference written here
// from the exercise's text: rank by (probability descending, id ascending), add up
// in a double until the total reaches p, zero the rest, divide the kept ones by
// that total converted to float once. (The lessons' tuned top-p under the hood
// must give the same bits: fast_test.cpp.)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "03_topk_topp/exercise/top_p.hpp"
#include "number_text.hpp"
#include "random_distributions.hpp"
#include "rng.hpp"
#include "sampling.hpp"

namespace {

using tang::testing::exact;
using tang::testing::num;

using tang::top_p_filter;

std::string show(const std::vector<float>& v) {
  std::ostringstream out;
  out << "(";
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  return out.str() + ")";
}

// The exercise's text, step by step.
std::vector<float> reference_top_p(std::vector<float> probabilities, float p) {
  if (p >= 1.0f) return probabilities;                     // 1.
  std::vector<std::size_t> ranking(probabilities.size());  // 2.
  std::iota(ranking.begin(), ranking.end(), std::size_t{0});
  std::stable_sort(ranking.begin(), ranking.end(), [&](std::size_t a, std::size_t b) {
    return probabilities[a] > probabilities[b];  // stable: equal ones stay in id order
  });
  double total = 0.0;  // 3.
  std::size_t kept = 0;
  while (kept < ranking.size()) {
    total += static_cast<double>(probabilities[ranking[kept]]);
    ++kept;
    if (total >= static_cast<double>(p)) break;
  }
  const float divisor = static_cast<float>(total);  // 4.
  for (std::size_t r = 0; r < ranking.size(); ++r) {
    float& x = probabilities[ranking[r]];
    x = r < kept ? x / divisor : 0.0f;
  }
  return probabilities;
}

std::size_t kept_count(const std::vector<float>& v) {
  return static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0f; }));
}

// Runs your filter and requires the reference's bits; on failure says where and how.
void expect_bits(const std::vector<float>& input, float p, const std::string& what) {
  const std::vector<float> expected = reference_top_p(input, p);
  std::vector<float> yours = input;
  top_p_filter(yours, p);
  ASSERT_EQ(yours.size(), expected.size());
  if (std::memcmp(yours.data(), expected.data(), yours.size() * sizeof(float)) == 0) return;
  std::size_t i = 0;
  while (std::memcmp(&yours[i], &expected[i], sizeof(float)) == 0) ++i;
  std::string why;
  if (kept_count(yours) != kept_count(expected)) {
    why = "the nucleus has " + std::to_string(kept_count(expected)) + " characters, yours kept " +
          std::to_string(kept_count(yours)) +
          " (rank by probability, equal ones by the smaller id; add up in a double; stop at the "
          "first character where the total >= p)";
  } else if ((yours[i] == 0.0f) != (expected[i] == 0.0f)) {
    why =
        "the right number of characters, but not the right ones: equal probabilities rank by "
        "id, the smaller id first";
  } else {
    why =
        "the right characters, but the value differs in its last bits: add the "
        "probabilities up in a double (a float total ends a few bits away), and divide each "
        "kept probability by that total converted to float ONCE (float(total))";
  }
  FAIL() << what << ", p = " << exact(p) << ": at id " << i << " the result should be "
         << exact(expected[i]) << ", yours is " << exact(yours[i]) << ". " << why;
}

// --- on paper ---------------------------------------------------------------------

// Runs your filter on `input` and compares with `expected` to 1e-6.
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
  expect_filtered({0.125f, 0.125f, 0.25f, 0.5f}, 0.875f,
                  {0.125f / 0.875f, 0.0f, 0.25f / 0.875f, 0.5f / 0.875f},
                  "0.5 + 0.25 + 0.125 reaches 0.875 exactly; of the two 0.125s only id 0, the "
                  "smaller id");
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

TEST(Exercise03, ZerosStayZero) {
  expect_filtered({0.0f, 0.5f, 0.0f, 0.3f, 0.2f, 0.0f}, 0.9f, {0.0f, 0.5f, 0.0f, 0.3f, 0.2f, 0.0f},
                  "0.5 + 0.3 + 0.2 = 1.0 reaches 0.9 only with id 4; the zeros (left by top-k) "
                  "stay zero");
}

// The distribution is the first ids of a longer buffer (as a row of a batch is): the
// probabilities past its end must neither join the ranking nor be changed.
TEST(Exercise03, ReadsAndWritesNothingPastTheEndOfItsSpan) {
  std::vector<float> buffer = {0.5f, 0.3f, 0.2f, 0.9f, 0.05f};
  top_p_filter(std::span(buffer).first(3), 0.75f);
  const std::vector<float> yours(buffer.begin(), buffer.begin() + 3);
  const std::vector<float> expected = {0.625f, 0.375f, 0.0f};
  bool same = true;
  for (std::size_t i = 0; i < 3; ++i) same = same && std::abs(yours[i] - expected[i]) <= 1e-6f;
  EXPECT_TRUE(same) << "top_p_filter(0.5, 0.3, 0.2) with p = 0.75 should give " << show(expected)
                    << ", yours gave " << show(yours)
                    << ". The span ends at id 2, but the buffer it lies in goes on with 0.9 and "
                       "0.05: a 0.9 in the ranking reaches p alone and zeroes the whole span. "
                       "Rank probabilities.size() ids only, never past the span's end";
  EXPECT_EQ(buffer[3], 0.9f) << "the 0.9 just past the end of the span is not yours to change";
  EXPECT_EQ(buffer[4], 0.05f) << "the 0.05 past the end of the span is not yours to change";
}

// --- the exact arithmetic -----------------------------------------------------------

TEST(Exercise03, TheRunningTotalIsADouble) {
  // 0.1f + 0.2f + 0.3f + 0.4f in float is 1.0000001; in double 1.0000000149. Either
  // reaches p = 0.99999994 at the last one; but with p a hair above the double
  // total of the first three, only a double walk finds that three are not enough.
  const std::vector<float> p = {0.4f, 0.3f, 0.2f, 0.1f};
  const double three = static_cast<double>(0.4f) + 0.3f + 0.2f;
  const float just_above = std::nextafter(static_cast<float>(three), 1.0f);
  expect_bits(p, just_above, "(0.4, 0.3, 0.2, 0.1)");
  expect_bits(p, static_cast<float>(three), "(0.4, 0.3, 0.2, 0.1)");
  expect_bits(p, std::nextafter(1.0f, 0.0f), "(0.4, 0.3, 0.2, 0.1)");
}

TEST(Exercise03, KeptProbabilitiesAreDividedByTheFloatOfTheTotal) {
  // Thirds do not add up exactly: the division shows whether float(total) was used.
  expect_bits({0.3f, 0.3f, 0.3f, 0.1f}, 0.8f, "(0.3, 0.3, 0.3, 0.1)");
  expect_bits({0.7f, 0.2f, 0.1f}, 0.85f, "(0.7, 0.2, 0.1)");
  std::vector<float> tenths(10, 0.1f);
  expect_bits(tenths, 0.55f, "ten times 0.1");
}

// Ties at the edge of the nucleus: of 17 to 100 equal probabilities, only the
// ones with the smallest ids that are needed to reach p are kept.
TEST(Exercise03, ManyTiesAtTheEdgeOfTheNucleusKeepTheSmallestIds) {
  tang::Rng rng(17);
  for (const std::size_t ties : {17u, 20u, 40u, 100u}) {
    for (int trial = 0; trial < 20; ++trial) {
      const std::size_t n = ties + 10;
      std::vector<float> probabilities(n);
      // 3 large, `ties` equal ones in the middle, the rest small; ids shuffled
      std::vector<float> values;
      for (int i = 0; i < 3; ++i) values.push_back(0.1f + 0.05f * static_cast<float>(i));
      for (std::size_t i = 0; i < ties; ++i) values.push_back(0.01f);
      while (values.size() < n) values.push_back(0.001f * (1.0f + rng.uniform()));
      for (std::size_t i = n - 1; i > 0; --i) std::swap(values[i], values[rng.below(i + 1)]);
      float total = 0.0f;
      for (float v : values) total += v;
      for (std::size_t i = 0; i < n; ++i) probabilities[i] = values[i] / total;
      // a p that stops the walk inside the tied group
      const float large = (0.1f + 0.15f + 0.2f) / total, tie = 0.01f / total;
      const float p = large + tie * (0.5f + static_cast<float>(trial % static_cast<int>(ties)));
      expect_bits(probabilities, p,
                  std::to_string(ties) + " equal probabilities at the edge of the nucleus (trial " +
                      std::to_string(trial) + ")");
      if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) return;
    }
  }
}

TEST(Exercise03, AFlatDistributionKeepsTheSmallestIds) {
  for (const std::size_t n : {17u, 64u, 7129u}) {
    const std::vector<float> flat(n, 1.0f / static_cast<float>(n));
    for (const float p : {1e-6f, 0.1f, 0.5f, 0.9f, std::nextafter(1.0f, 0.0f)}) {
      expect_bits(flat, p, "a flat distribution of " + std::to_string(n));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Exercise03, SameBitsAsTheExercisesTextOnRandomDistributions) {
  tang::Rng rng(3);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<float> probabilities = tang::testing::random_distribution(rng, trial, 3000);
    const std::size_t n = probabilities.size();
    const int which = trial % 7;
    const float p = which == 0   ? 1e-6f
                    : which == 1 ? 1.0f - rng.uniform() * 1e-3f
                    : which == 2 ? std::nextafter(1.0f, 0.0f)
                                 : rng.uniform();
    expect_bits(probabilities, std::max(p, 1e-6f),
                "random distribution #" + std::to_string(trial) + " of " + std::to_string(n) +
                    " characters");
    if (::testing::Test::HasFailure()) return;  // one message is enough
  }
}

}  // namespace
