// reference_check_test: the learner build's check against the reference solutions
// (common/reference_check.hpp), with pickers whose answers are known, and lesson 03's
// min-p picker, which the check asks twice for the same step.
#include "reference_check.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <vector>

#include "min_p_sampler.hpp"

namespace {

using tang::Picker;
using tang::Rng;
using tang::TokenId;

constexpr float kStep = 1.0f / 16777216.0f;  // 2^-24: one coin apart

const tang::Tokenizer& abc() {
  static const tang::Tokenizer tokenizer({"a", "b", "c"});
  return tokenizer;
}

// Picks 0 below `border`, 1 above it: a two-character sample_from.
Picker split_at(float border) {
  return [border](std::span<float>, std::size_t, Rng& rng) -> TokenId {
    return rng.uniform() < border ? 0 : 1;
  };
}

TEST(RngWhoseNextCoinIs, DrawsExactlyThatCoin) {
  for (const float coin : {0.0f, kStep, 0.25f, 0.5f + 3 * kStep, 0.999f, 1.0f - kStep}) {
    Rng rng = tang::rng_whose_next_coin_is(coin);
    EXPECT_EQ(rng.uniform(), coin);
  }
  Rng drawn(42);  // and a coin drawn by an ordinary Rng
  Rng peek = drawn;
  const float coin = peek.uniform();
  EXPECT_EQ(tang::rng_whose_next_coin_is(coin).uniform(), drawn.uniform());
}

TEST(ReferenceCheck, SilentWhileBothChooseAlike) {
  std::ostringstream report;
  const Picker checked =
      tang::checked_against_reference(split_at(0.5f), split_at(0.5f), abc(), {"02"}, report, true);
  Rng rng(7), same(7);
  std::vector<float> logits(3, 0.0f);
  for (std::size_t step = 0; step < 50; ++step) {
    EXPECT_EQ(checked(logits, step, rng), split_at(0.5f)(logits, step, same));
  }
  EXPECT_EQ(report.str(), "");
}

TEST(ReferenceCheck, ACoinNextToTheBorderIsOnlyRounding) {
  // yours puts the border 3 coins higher: a coin 1 coin above theirs falls on a
  // different character, and 2 coins lower theirs chooses yours too
  std::ostringstream report;
  const Picker checked = tang::checked_against_reference(split_at(0.5f + 3 * kStep), split_at(0.5f),
                                                         abc(), {"02"}, report, true);
  Rng rng = tang::rng_whose_next_coin_is(0.5f + kStep);
  std::vector<float> logits(3, 0.0f);
  EXPECT_EQ(checked(logits, 12, rng), 0);  // yours, always
  EXPECT_EQ(report.str(),
            "note: new character 13: yours a, the reference solutions' b (exercise 02), on the "
            "same logits; only rounding: the coin 0.500000 moved by 1.2e-07 makes theirs a too\n");
}

TEST(ReferenceCheck, AFarBorderIsADisagreementWithTheTestsToRun) {
  std::ostringstream report;
  const Picker checked = tang::checked_against_reference(split_at(0.9f), split_at(0.5f), abc(),
                                                         {"02", "03"}, report, true);
  Rng rng = tang::rng_whose_next_coin_is(0.75f);
  std::vector<float> logits(3, 0.0f);
  EXPECT_EQ(checked(logits, 0, rng), 0);
  EXPECT_EQ(report.str(),
            "note: new character 1: yours a, the reference solutions' b (exercises 02 and 03), on "
            "the same logits; yours disagrees with theirs (no coin within 1e-04 of 0.750000 makes "
            "theirs a): ctest --preset learner -L '^exercise_(02|03)$'\n");
}

TEST(ReferenceCheck, OneNoteAPoemAndYoursDecides) {
  std::ostringstream report;
  const Picker always_c = [](std::span<float>, std::size_t, Rng& rng) -> TokenId {
    rng.uniform();
    return 2;
  };
  const Picker checked =
      tang::checked_against_reference(always_c, split_at(0.5f), abc(), {"02"}, report, true);
  Rng rng(3);
  std::vector<float> logits(3, 0.0f);
  for (std::size_t step = 0; step < 5; ++step) EXPECT_EQ(checked(logits, step, rng), 2);
  for (std::size_t step = 0; step < 5; ++step) EXPECT_EQ(checked(logits, step, rng), 2);
  std::size_t notes = 0;
  for (std::size_t at = report.str().find("note:"); at != std::string::npos;
       at = report.str().find("note:", at + 1))
    ++notes;
  EXPECT_EQ(notes, 2u);  // the second poem starts at written == 0
}

TEST(ReferenceCheck, OffItIsYoursAlone) {
  std::ostringstream report;
  const Picker never = [](std::span<float>, std::size_t, Rng&) -> TokenId {
    throw std::logic_error("the reference picker ran");
  };
  const Picker checked =
      tang::checked_against_reference(split_at(0.5f), never, abc(), {"02"}, report, false);
  Rng rng(1);
  std::vector<float> logits(3, 0.0f);
  EXPECT_NO_THROW(checked(logits, 0, rng));
  EXPECT_EQ(report.str(), "");
}

TEST(MinPPicker, AskedTwiceForAStepItAnswersAlike) {
  // the check runs the reference picker again for the same step (nudged coins): the
  // penalty must see the same recent characters each time, and the text stay the same
  const tang::MinPSettings settings{1.5f, 3.0f, 4, 0.05f, nullptr};  // a strong penalty
  const Picker once = tang::min_p_picker(settings, tang::kReferenceMinP);
  const Picker twice = tang::min_p_picker(settings, tang::kReferenceMinP);
  Rng a(11), b(11);
  std::vector<TokenId> written_once, written_twice;
  for (std::size_t step = 0; step < 40; ++step) {
    std::vector<float> logits(8);
    for (std::size_t i = 0; i < logits.size(); ++i) logits[i] = 1.0f + static_cast<float>(i % 5);
    std::vector<float> copy = logits, again = logits;
    written_once.push_back(once(logits, step, a));
    Rng extra(1000 + step);     // a retry with another coin, as the check's nudged coins
    twice(again, step, extra);  // its answer is thrown away
    written_twice.push_back(twice(copy, step, b));
  }
  EXPECT_EQ(written_once, written_twice);
}

}  // namespace
