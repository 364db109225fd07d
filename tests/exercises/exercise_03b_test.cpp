// exercise_03b_test: EXERCISE 03b, a repetition penalty and min-p
// (lessons/03_topk_topp/exercise/min_p_penalty.cpp).
//
//   ctest --preset yours -L '^yours_03b$'     your code
//   ctest --preset release -L exercise_03b     the reference solution
//
// Small hand-made cases with answers worked out on paper, then the exact
// arithmetic the exercise asks for, bit for bit, against a reference written
// here from the exercise's text: the penalty once per distinct recent id (z > 0
// divided, z <= 0 multiplied); min-p's border min_p * largest as one float
// multiplication, p >= border kept, the kept ones added up in a double in id
// order and divided by that total converted to float once. Last, the order in
// which section 3's third block applies them (lessons/03_topk_topp/
// min_p_sampler.hpp): the penalty on the model's logits, then (z - max) / T,
// softmax, min-p. No test draws a coin, so none needs exercise 02.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "03_topk_topp/exercise/min_p_penalty.hpp"
#include "03_topk_topp/min_p_sampler.hpp"
#include "number_text.hpp"
#include "random_distributions.hpp"
#include "rng.hpp"
#include "sampling.hpp"

namespace {

using tang::testing::exact;
using tang::testing::num;

using tang::min_p_filter;
using tang::repetition_penalty;
using tang::TokenId;

const float kInf = std::numeric_limits<float>::infinity();

template <typename T>
std::string show(const std::vector<T>& v) {
  std::ostringstream out;
  out << "(";
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  return out.str() + ")";
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::size_t first_difference(const std::vector<float>& a, const std::vector<float>& b) {
  std::size_t i = 0;
  while (i < a.size() && std::memcmp(&a[i], &b[i], sizeof(float)) == 0) ++i;
  return i;
}

// --- the exercise's text, step by step ------------------------------------------------

std::vector<float> reference_penalty(std::vector<float> logits, const std::vector<TokenId>& recent,
                                     float penalty) {
  std::vector<bool> done(logits.size(), false);
  for (const TokenId id : recent) {
    const auto i = static_cast<std::size_t>(id);
    if (done[i]) continue;  // 2. once, however often it occurs
    done[i] = true;
    logits[i] = logits[i] > 0.0f ? logits[i] / penalty : logits[i] * penalty;
  }
  return logits;
}

std::vector<float> reference_min_p(std::vector<float> probabilities, float min_p) {
  if (min_p == 0.0f) return probabilities;  // 1.
  const float largest = *std::max_element(probabilities.begin(), probabilities.end());
  const float border = min_p * largest;  // 2. one float multiplication
  double total = 0.0;                    // 3. in a double, ids in order
  for (const float p : probabilities) {
    if (p >= border) total += static_cast<double>(p);
  }
  const float divisor = static_cast<float>(total);
  for (float& p : probabilities) p = p >= border ? p / divisor : 0.0f;
  return probabilities;
}

// Throws what the call throws; fails unless it is std::invalid_argument.
void expect_invalid_argument(const std::function<void()>& call, const std::string& what) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " should throw std::invalid_argument; yours threw another exception: "
                  << e.what();
    return;
  }
  ADD_FAILURE() << what << " should throw std::invalid_argument; yours returned normally";
}

// Close enough for numbers worked out on paper (and -infinity equals -infinity).
bool close(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && !(std::abs(a[i] - b[i]) <= 1e-6f)) return false;
  }
  return true;
}

// --- repetition_penalty, on paper -----------------------------------------------------

void expect_penalised(const std::vector<float>& logits, const std::vector<TokenId>& recent,
                      float penalty, const std::vector<float>& expected, const std::string& why) {
  std::vector<float> yours = logits;
  repetition_penalty(yours, recent, penalty);
  if (!close(yours, expected)) {
    ADD_FAILURE() << "repetition_penalty" << show(logits) << " with recent " << show(recent)
                  << " and penalty " << num(penalty) << " should give " << show(expected)
                  << ", yours gave " << show(yours) << ": " << why;
  }
}

TEST(Exercise03b, PenaltyDividesPositiveLogitsAndMultipliesTheOthers) {
  expect_penalised({2.0f, -1.0f, 0.0f, 3.0f}, {0, 1, 0, 2}, 2.0f, {1.0f, -2.0f, 0.0f, 3.0f},
                   "id 0 (2 > 0) is divided by 2, once although it occurs twice; id 1 (-1 <= 0) "
                   "is multiplied by 2, which makes it LESS likely (dividing would give -0.5, more "
                   "likely); id 2's 0 stays 0; id 3 is not recent and stays 3");
  expect_penalised({1.0e-3f, -1.0e-3f, 5.0f}, {0, 1}, 2.0f, {5.0e-4f, -2.0e-3f, 5.0f},
                   "the sign decides, not the size: 0.001 > 0 is divided, -0.001 <= 0 multiplied");
  expect_penalised({-kInf, 1.0f, 2.0f}, {0, 1}, 1.1f, {-kInf, 1.0f / 1.1f, 2.0f},
                   "a banned character (-infinity) stays banned: -inf * 1.1 = -inf; 1 / 1.1 = "
                   "0.909091");
}

TEST(Exercise03b, PenaltyCountsEachCharacterOnce) {
  expect_penalised({3.0f, -2.0f, 1.0f}, {0, 0, 0, 1, 1}, 1.5f, {2.0f, -3.0f, 1.0f},
                   "id 0 occurs three times among the recent characters but is penalised once: "
                   "3 / 1.5 = 2, not 3 / 1.5 / 1.5 / 1.5 = 0.889; id 1 twice, once: -2 * 1.5 = -3");
  expect_penalised({4.0f, 4.0f}, {1, 1, 1, 1, 1, 1, 1, 1}, 2.0f, {4.0f, 2.0f},
                   "id 1 eight times is still one halving: 4 / 2 = 2");
}

TEST(Exercise03b, PenaltyWithoutRecentCharactersOrOfOneChangesNothing) {
  tang::Rng rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t n = 1 + rng.below(300);
    std::vector<float> logits(n);
    for (float& z : logits) z = rng.uniform() < 0.1f ? -kInf : rng.normal() * 4.0f;
    std::vector<TokenId> recent;
    for (std::size_t i = 0; i < 64; ++i) recent.push_back(static_cast<TokenId>(rng.below(n)));

    std::vector<float> yours = logits;
    repetition_penalty(yours, {}, 1.1f);
    if (!same_bits(yours, logits)) {
      const std::size_t i = first_difference(yours, logits);
      FAIL() << "with no recent characters nothing is penalised, but id " << i << " changed from "
             << exact(logits[i]) << " to " << exact(yours[i]);
    }
    yours = logits;
    repetition_penalty(yours, recent, 1.0f);
    if (!same_bits(yours, logits)) {
      const std::size_t i = first_difference(yours, logits);
      FAIL() << "a penalty of 1 changes nothing (z / 1 = z * 1 = z), but id " << i
             << " changed from " << exact(logits[i]) << " to " << exact(yours[i]);
    }
  }
}

TEST(Exercise03b, PenaltyRejectsIdsOutsideTheVocabularyAndBadPenalties) {
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  std::vector<float> yours = logits;
  expect_invalid_argument(
      [&] {
        repetition_penalty(yours, std::vector<TokenId>{0, 3}, 1.1f);
      },
      "repetition_penalty on 3 logits with recent (0, 3): id 3 is outside the vocabulary, which");
  EXPECT_TRUE(same_bits(yours, logits))
      << "an error must leave the logits untouched: check every id BEFORE penalising any (yours "
         "gave "
      << show(yours) << ")";
  yours = logits;
  expect_invalid_argument([&] { repetition_penalty(yours, std::vector<TokenId>{-1}, 1.1f); },
                          "repetition_penalty with recent (-1): a negative id");
  for (const float bad : {0.0f, -1.1f, std::numeric_limits<float>::quiet_NaN()}) {
    yours = logits;
    expect_invalid_argument([&] { repetition_penalty(yours, std::vector<TokenId>{0}, bad); },
                            "repetition_penalty with penalty " + num(bad) + " (not > 0)");
  }
}

// The logits and the recent ids are the first entries of longer buffers (as the lesson
// passes its window of the last 64 characters): what lies past either end is not theirs.
TEST(Exercise03b, PenaltyReadsAndWritesNothingPastTheEndOfItsSpans) {
  std::vector<float> logits = {2.0f, -1.0f, 3.0f, 5.0f, 5.0f};
  const std::vector<TokenId> history = {0, 0, 1, 2};  // the window is the first two
  repetition_penalty(std::span(logits).first(3), std::span(history).first(2), 2.0f);
  const std::vector<float> yours(logits.begin(), logits.begin() + 3);
  EXPECT_TRUE(close(yours, {1.0f, -1.0f, 3.0f}))
      << "repetition_penalty(2, -1, 3) with recent (0, 0) and penalty 2 should give (1, -1, 3), "
         "yours gave "
      << show(yours)
      << ". Only id 0 is recent: the recent span ends after its two 0s, but the buffer it lies "
         "in goes on with the ids 1 and 2. Read recent.size() ids only, never past the span's end";
  EXPECT_EQ(logits[3], 5.0f) << "the logit just past the end of the span is not yours to change";
  EXPECT_EQ(logits[4], 5.0f) << "the logit past the end of the span is not yours to change";
}

// --- repetition_penalty, the exact arithmetic ------------------------------------------

TEST(Exercise03b, PenaltySameBitsAsTheExercisesTextOnRandomLogits) {
  tang::Rng rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t n = trial % 50 == 0 ? 7129 : 1 + rng.below(300);
    std::vector<float> logits(n);
    for (float& z : logits) {
      const float u = rng.uniform();
      z = u < 0.05f ? -kInf : u < 0.1f ? 0.0f : rng.normal() * 4.0f;
    }
    // up to 64 recent ids, from a few characters so that they repeat
    const std::size_t pool = 1 + rng.below(std::min<std::size_t>(n, 40));
    std::vector<TokenId> recent(rng.below(65));
    for (TokenId& id : recent) id = static_cast<TokenId>(rng.below(pool) * (n / pool));
    const float penalties[] = {1.1f, 1.5f, 1.3f, 0.9f, 1.0f + rng.uniform()};
    const float penalty = penalties[trial % 5];

    const std::vector<float> expected = reference_penalty(logits, recent, penalty);
    std::vector<float> yours = logits;
    repetition_penalty(yours, recent, penalty);
    ASSERT_EQ(yours.size(), expected.size());
    if (same_bits(yours, expected)) continue;
    const std::size_t i = first_difference(yours, expected);
    const bool is_recent =
        std::find(recent.begin(), recent.end(), static_cast<TokenId>(i)) != recent.end();
    const std::string why =
        !is_recent ? "id " + std::to_string(i) +
                         " is not among the recent characters: its logit must stay as it is"
                   : "id " + std::to_string(i) + " occurs " +
                         std::to_string(
                             std::count(recent.begin(), recent.end(), static_cast<TokenId>(i))) +
                         " time(s) among the recent characters and is penalised ONCE: z > 0 "
                         "becomes z / penalty, z <= 0 becomes z * penalty (in float)";
    FAIL() << "random logits #" << trial << " (" << n << " characters, " << recent.size()
           << " recent, penalty " << exact(penalty) << "): id " << i << " was " << exact(logits[i])
           << " and should become " << exact(expected[i]) << ", yours is " << exact(yours[i])
           << ". " << why;
  }
}

// --- min_p_filter, on paper ------------------------------------------------------------

void expect_min_p(const std::vector<float>& input, float min_p, const std::vector<float>& expected,
                  const std::string& why) {
  std::vector<float> yours = input;
  min_p_filter(yours, min_p);
  if (!close(yours, expected)) {
    ADD_FAILURE() << "min_p_filter" << show(input) << " with min_p = " << num(min_p)
                  << " should give " << show(expected) << ", yours gave " << show(yours) << ": "
                  << why;
  }
}

TEST(Exercise03b, MinPKeepsWhatIsAtLeastMinPTimesTheLargest) {
  expect_min_p({0.5f, 0.3f, 0.15f, 0.05f}, 0.2f, {0.5f / 0.95f, 0.3f / 0.95f, 0.15f / 0.95f, 0.0f},
               "the border is 0.2 x 0.5 = 0.1: 0.5, 0.3 and 0.15 stay, 0.05 goes; the three add "
               "up to 0.95 and are divided by it");
  expect_min_p({0.05f, 0.15f, 0.5f, 0.3f}, 0.2f, {0.0f, 0.15f / 0.95f, 0.5f / 0.95f, 0.3f / 0.95f},
               "the same in another order: the largest counts wherever it is");
}

TEST(Exercise03b, MinPKeepsTiesAtTheBorder) {
  expect_min_p({0.5f, 0.25f, 0.125f, 0.125f}, 0.5f, {2.0f / 3.0f, 1.0f / 3.0f, 0.0f, 0.0f},
               "the border is 0.5 x 0.5 = 0.25; id 1 sits exactly on it and stays (p >= border), "
               "ids 2 and 3 go; 0.5 + 0.25 = 0.75");
  expect_min_p({0.5f, 0.25f, 0.125f, 0.125f}, 0.25f, {0.5f, 0.25f, 0.125f, 0.125f},
               "the border is 0.25 x 0.5 = 0.125; ids 2 and 3 sit on it and stay, so all four "
               "do, and they add up to 1");
}

TEST(Exercise03b, MinPOfOneKeepsOnlyTheLargest) {
  expect_min_p({0.1f, 0.7f, 0.2f}, 1.0f, {0.0f, 1.0f, 0.0f},
               "min_p = 1: the border is the largest itself; only id 1 stays, renormalised to 1");
  expect_min_p({0.2f, 0.4f, 0.4f}, 1.0f, {0.0f, 0.5f, 0.5f},
               "two share the largest, 0.4: both sit on the border and stay, 0.4 / 0.8 each");
}

TEST(Exercise03b, MinPZerosStayZero) {
  expect_min_p({0.0f, 0.5f, 0.0f, 0.3f, 0.2f, 0.0f}, 0.1f, {0.0f, 0.5f, 0.0f, 0.3f, 0.2f, 0.0f},
               "the border is 0.05: 0.5, 0.3 and 0.2 stay and add up to 1; the zeros (removed by "
               "an earlier filter) stay zero");
  expect_min_p({0.0f, 0.6f, 0.0f, 0.3f, 0.1f, 0.0f}, 0.25f,
               {0.0f, 0.6f / 0.9f, 0.0f, 0.3f / 0.9f, 0.0f, 0.0f},
               "the border is 0.25 x 0.6 = 0.15: 0.6 and 0.3 stay, 0.1 goes; divide by 0.9");
}

TEST(Exercise03b, MinPOfZeroChangesNothing) {
  tang::Rng rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<float> probabilities(1 + rng.below(500));
    for (float& z : probabilities) z = rng.normal() * 2.0f;
    tang::softmax_in_place(probabilities);
    std::vector<float> yours = probabilities;
    min_p_filter(yours, 0.0f);
    if (!same_bits(yours, probabilities)) {
      const std::size_t i = first_difference(yours, probabilities);
      FAIL() << "min_p = 0 changes nothing, not even by renormalising (rule 1); but id " << i
             << " changed from " << exact(probabilities[i]) << " to " << exact(yours[i])
             << " (distribution #" << trial << " of " << probabilities.size() << ")";
    }
  }
}

TEST(Exercise03b, MinPRejectsValuesOutsideZeroToOne) {
  for (const float bad : {-0.1f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> probabilities = {0.5f, 0.5f};
    expect_invalid_argument([&] { min_p_filter(probabilities, bad); },
                            "min_p_filter with min_p = " + num(bad) + " (outside [0, 1])");
  }
}

// The distribution is the first ids of a longer buffer: the 0.9 past its end must not
// become the largest (its border 0.18 would drop the 0.15), nor any value there change.
TEST(Exercise03b, MinPReadsAndWritesNothingPastTheEndOfItsSpan) {
  std::vector<float> buffer = {0.5f, 0.3f, 0.15f, 0.05f, 0.9f, 0.01f};
  min_p_filter(std::span(buffer).first(4), 0.2f);
  const std::vector<float> yours(buffer.begin(), buffer.begin() + 4);
  const std::vector<float> expected = {0.5f / 0.95f, 0.3f / 0.95f, 0.15f / 0.95f, 0.0f};
  EXPECT_TRUE(close(yours, expected))
      << "min_p_filter(0.5, 0.3, 0.15, 0.05) with min_p = 0.2 should give " << show(expected)
      << ", yours gave " << show(yours)
      << ". The span ends at id 3, but the buffer it lies in goes on with 0.9 and 0.01: the "
         "largest is the span's own 0.5 (border 0.1). Read probabilities.size() ids only, never "
         "past the span's end";
  EXPECT_EQ(buffer[4], 0.9f) << "the 0.9 just past the end of the span is not yours to change";
  EXPECT_EQ(buffer[5], 0.01f) << "the 0.01 past the end of the span is not yours to change";
}

// --- min_p_filter, the exact arithmetic ---------------------------------------------------

std::size_t kept_count(const std::vector<float>& v) {
  return static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0f; }));
}

// Runs your filter and requires the reference's bits; on failure says where and how.
void expect_min_p_bits(const std::vector<float>& input, float min_p, const std::string& what) {
  const std::vector<float> expected = reference_min_p(input, min_p);
  std::vector<float> yours = input;
  min_p_filter(yours, min_p);
  ASSERT_EQ(yours.size(), expected.size());
  if (same_bits(yours, expected)) return;
  // a character kept that should go, or gone that should stay, first; then the values
  std::size_t i = 0;
  while (i < yours.size() && (yours[i] == 0.0f) == (expected[i] == 0.0f)) ++i;
  const float largest = *std::max_element(input.begin(), input.end());
  std::string why;
  if (i < yours.size()) {
    why = "id " + std::to_string(i) + " has p = " + exact(input[i]) + " and the border is " +
          exact(min_p * largest) + " (min_p * largest, one float multiplication), so it " +
          (expected[i] == 0.0f ? "goes" : "stays (p >= border: ties at the border stay)") + "; " +
          std::to_string(kept_count(expected)) + " characters stay, yours kept " +
          std::to_string(kept_count(yours));
  } else {
    i = first_difference(yours, expected);
    why =
        "the right characters, but the value differs in its last bits: add the kept "
        "probabilities up in a double over the ids in order, and divide each by that total "
        "converted to float ONCE (float(total))";
  }
  FAIL() << what << ", min_p = " << exact(min_p) << ": at id " << i << " the result should be "
         << exact(expected[i]) << ", yours is " << exact(yours[i]) << ". " << why;
}

// 17 or more equal probabilities exactly on the border, ids shuffled: every one stays;
// the ones a hair below it go.
TEST(Exercise03b, MinPManyTiesAtTheBorderAllStay) {
  tang::Rng rng(17);
  for (const std::size_t ties : {17u, 20u, 40u, 100u, 1000u}) {
    for (const float min_p : {0.05f, 0.1f, 0.3f}) {
      // 3 large, `ties` on the border, 10 a hair below it, 10 well below; then shuffled
      const std::size_t n = 3 + ties + 20;
      std::vector<float> values = {0.2f, 0.15f, 0.1f};
      while (values.size() < n) values.push_back(min_p * 0.2f);
      float total = 0.0f;
      for (const float v : values) total += v;
      for (float& v : values) v /= total;
      const float border = min_p * values[0];  // values[0] is the largest
      for (std::size_t i = 3; i < n; ++i) {
        const std::size_t k = i - 3;
        values[i] = k < ties        ? border
                    : k < ties + 10 ? std::nextafter(border, 0.0f)
                                    : border * 0.5f * rng.uniform();
      }
      std::vector<float> probabilities(n);
      std::vector<std::size_t> ids(n);
      for (std::size_t i = 0; i < n; ++i) ids[i] = i;
      for (std::size_t i = n - 1; i > 0; --i) std::swap(ids[i], ids[rng.below(i + 1)]);
      for (std::size_t i = 0; i < n; ++i) probabilities[ids[i]] = values[i];

      std::vector<float> yours = probabilities;
      min_p_filter(yours, min_p);
      EXPECT_EQ(kept_count(yours), 3 + ties)
          << ties << " probabilities sit exactly on the border (min_p = " << num(min_p)
          << ", border " << exact(border) << "): all " << ties
          << " stay with the 3 above it (p >= border), and the 10 just below it go";
      expect_min_p_bits(probabilities, min_p,
                        std::to_string(ties) + " equal probabilities on the border");
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// The border is min_p * largest as a float: where that product rounds DOWN, a
// probability equal to it is kept, although it is below the exact product.
TEST(Exercise03b, MinPBorderIsOneFloatMultiplication) {
  tang::Rng rng(23);
  int cases = 0;
  for (int trial = 0; trial < 100000 && cases < 50; ++trial) {
    const float largest = 0.2f + 0.7f * rng.uniform();
    const float min_p = rng.uniform();
    const float border = min_p * largest;
    if (!(static_cast<double>(border) < static_cast<double>(min_p) * static_cast<double>(largest)))
      continue;  // rounded up or exact: no test here
    ++cases;
    // largest, the border, a hair below it, and the rest of the probability spread out
    std::vector<float> probabilities = {largest, border, std::nextafter(border, 0.0f)};
    const float rest = 1.0f - largest - 2.0f * border;
    if (rest > 0.0f) {
      const std::size_t k = 1 + static_cast<std::size_t>(rest / (0.5f * largest));
      for (std::size_t i = 0; i < k; ++i) probabilities.push_back(rest / static_cast<float>(k));
    }
    expect_min_p_bits(probabilities, min_p,
                      "(largest " + exact(largest) + ", id 1 exactly on the border " +
                          exact(border) + ", id 2 a hair below)");
    if (::testing::Test::HasFailure()) return;
  }
  ASSERT_GT(cases, 10);
}

TEST(Exercise03b, MinPSameBitsAsTheExercisesTextOnRandomDistributions) {
  tang::Rng rng(3);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<float> probabilities = tang::testing::random_distribution(rng, trial, 7129);
    const std::size_t n = probabilities.size();
    const int which = trial % 6;
    const float min_p = which == 0   ? 0.05f
                        : which == 1 ? 1.0f
                        : which == 2 ? 1e-6f
                        : which == 3 ? 0.0f
                                     : rng.uniform();
    expect_min_p_bits(probabilities, min_p,
                      "random distribution #" + std::to_string(trial) + " of " + std::to_string(n) +
                          " characters");
    if (::testing::Test::HasFailure()) return;  // one message is enough
  }
}

// --- the order of section 3's third block (min_p_sampler.hpp) ----------------------------

// What the lesson's step must give: the penalty on the model's logits, (z - max) / T,
// softmax, min-p; written here from the exercise's text.
std::vector<float> reference_step(const std::vector<float>& logits,
                                  const std::vector<TokenId>& recent, const tang::MinPSettings& s) {
  std::vector<float> z = reference_penalty(logits, recent, s.penalty);
  const float max = *std::max_element(z.begin(), z.end());
  for (float& x : z) x = (x - max) / s.temperature;
  tang::softmax_in_place(z);
  return reference_min_p(z, s.min_p);
}

std::vector<float> lessons_step(std::vector<float> logits, const std::vector<TokenId>& recent,
                                const tang::MinPSettings& s) {
  tang::min_p_probabilities(logits, recent, s);
  return logits;
}

TEST(Exercise03b, TheLessonPenalisesTheLogitsThenDividesByTThenCutsWithMinP) {
  const tang::MinPSettings s{1.5f, 1.1f, 64, 0.05f};  // the lesson's block
  // The penalty reads the model's own logits: id 0's 3 > 0 becomes 3 / 1.1 = 2.73, below
  // id 1's 2.9. (After subtracting the largest, id 0's logit would be 0 and stay 0.)
  const std::vector<float> logits = {3.0f, 2.9f, 0.0f, -1.0f, -2.0f};
  const std::vector<float> p = lessons_step(logits, {0, 3}, s);
  ASSERT_EQ(p.size(), logits.size());
  EXPECT_GT(p[1], p[0]) << "with id 0 recent, its logit 3 becomes 3 / 1.1 = 2.73, below id 1's "
                           "2.9: the penalty comes first, on the model's logits; got "
                        << show(p);
  const std::vector<float> expected = reference_step(logits, {0, 3}, s);
  if (!same_bits(p, expected)) {
    const std::size_t i = first_difference(p, expected);
    ADD_FAILURE() << "logits " << show(logits) << " with ids 0 and 3 recent: at id " << i
                  << " the lesson's step should give " << exact(expected[i]) << ", it gave "
                  << exact(p[i])
                  << " (penalty on the logits, (z - max) / T, softmax, min-p; the tests above "
                     "check each of your functions alone: fix those first)";
  }

  // Min-p cuts after the temperature: at T = 1.5 id 1 is exp(-3.5 / 1.5) = 0.097 times
  // as likely as id 0, above 0.05, and stays; at T = 1 it would be 0.030 and go.
  const std::vector<float> q = lessons_step({0.0f, -3.5f, -9.0f}, {}, s);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_GT(q[1], 0.0f) << "min-p comes after the temperature: at T = 1.5, id 1 is 0.097 times "
                           "as likely as id 0 and stays; got "
                        << show(q);
  EXPECT_EQ(q[2], 0.0f) << "id 2 is exp(-9 / 1.5) = 0.0025 times as likely as id 0, below 0.05; "
                           "got "
                        << show(q);

  tang::Rng rng(29);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = trial % 20 == 0 ? 7129 : 2 + rng.below(300);
    std::vector<float> z(n);
    for (float& x : z) x = rng.normal() * 3.0f;
    std::vector<TokenId> recent(rng.below(65));
    for (TokenId& id : recent) id = static_cast<TokenId>(rng.below(std::min<std::size_t>(n, 50)));
    const tang::MinPSettings t{0.5f + 1.5f * rng.uniform(), 1.1f, 64, 0.05f};
    const std::vector<float> expected = reference_step(z, recent, t);
    const std::vector<float> got = lessons_step(z, recent, t);
    if (!same_bits(got, expected)) {
      const std::size_t i = first_difference(got, expected);
      FAIL() << "random logits #" << trial << ": at id " << i << " the lesson's step should give "
             << exact(expected[i]) << ", it gave " << exact(got[i])
             << " (penalty on the logits, (z - max) / T, softmax, min-p; the tests above check "
                "each of your functions alone: fix those first)";
    }
  }
}

// Greedy, so that no coin is drawn: with a penalty of 1.1, each character the picker
// writes is penalised for the next 64 steps, so it cycles through 65 characters; a new
// poem (written = 0) starts with a clean memory.
TEST(Exercise03b, TheLessonsPickerRemembersTheLast64CharactersOfEachPoem) {
  const std::size_t n = 100;
  std::vector<float> logits(n);  // 10, 9.999, 9.998, ...: every one above 10 / 1.1 = 9.09
  for (std::size_t i = 0; i < n; ++i) logits[i] = 10.0f - 0.001f * static_cast<float>(i);
  const tang::Picker pick = tang::min_p_picker({0.0f, 1.1f, 64, 0.05f});
  tang::Rng rng(1);
  for (int poem = 0; poem < 2; ++poem) {
    for (std::size_t written = 0; written < 200; ++written) {
      std::vector<float> z = logits;
      const TokenId got = pick(z, written, rng, nullptr);
      const auto expected = static_cast<TokenId>(written % 65);
      if (got != expected) {
        FAIL() << "poem " << poem + 1 << ", character " << written << ": the greedy picker should "
               << "write id " << expected << ", it wrote " << got
               << ". The logits fall slowly with the id, and every penalised one (z / 1.1) is "
                  "below every other, so the picker takes the smallest id among the last 64 it did "
                  "NOT write: 0, 1, ..., 64, then 0 again (it has just left the window of 64)"
               << (written == 0 && poem == 1 ? "; a new poem (written = 0) forgets the last one"
                                             : "");
      }
    }
  }
  const tang::Picker plain = tang::min_p_picker({0.0f, 1.0f, 64, 0.05f});
  for (std::size_t written = 0; written < 10; ++written) {
    std::vector<float> z = logits;
    EXPECT_EQ(plain(z, written, rng, nullptr), 0)
        << "with a penalty of 1 greedy always writes id 0";
  }
}

}  // namespace
