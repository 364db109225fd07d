// exercise_code_test: --yours and the comparison of yours with the reference
// solutions (common/exercise_code.hpp), on answers worked out by hand.
#include "exercise_code.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"  // compare_draws, exercise 02's
#include "errors.hpp"

namespace {

using tang::Verdict;

struct ChoiceReset : ::testing::Test {
  ~ChoiceReset() override { tang::choose_exercise_code(""); }
};

using YoursFlag = ChoiceReset;

TEST_F(YoursFlag, ChoosesAllSomeOrNone) {
  tang::choose_exercise_code("");
  EXPECT_FALSE(tang::runs_yours("03"));
  EXPECT_EQ(tang::exercise_code_line().rfind("exercise code: the reference solutions", 0), 0u);
  tang::choose_exercise_code("all");
  for (std::string_view id : tang::exercise_ids()) EXPECT_TRUE(tang::runs_yours(id)) << id;
  tang::choose_exercise_code("03,06a");
  EXPECT_TRUE(tang::runs_yours("03"));
  EXPECT_TRUE(tang::runs_yours("06a"));
  EXPECT_FALSE(tang::runs_yours("03b"));
  EXPECT_NE(tang::exercise_code_line().find("YOURS for 03, 06a"), std::string::npos)
      << tang::exercise_code_line();
}

TEST_F(YoursFlag, RefusesWhatIsNotAnExercise) {
  for (const char* bad : {"04", "03,", "3", "03,xx", ",03", "all,03"}) {
    try {
      tang::choose_exercise_code(bad);
      ADD_FAILURE() << "--yours " << bad << " was taken";
    } catch (const tang::BadOption& e) {
      EXPECT_NE(std::string(e.what()).find("--yours"), std::string::npos) << e.what();
      // every exercise named, from the one list
      EXPECT_NE(std::string(e.what()).find("12, 13 separated"), std::string::npos) << e.what();
    }
  }
}

// The lines a lesson ends with under --yours: how many calls matched, or where
// yours first differed, or that an exercise chosen never ran.
TEST_F(YoursFlag, TheSummarySaysWhatMatched) {
  std::ostringstream notes;
  tang::choose_exercise_code("09a,09b", true, &notes);
  static tang::ExerciseSwitch matching("09a", "matching_function");
  static tang::ExerciseSwitch differing("09a", "differing_function");
  for (int call = 0; call < 3; ++call) {
    ASSERT_TRUE(matching.compares());
    matching.check({}, "");
  }
  ASSERT_TRUE(differing.compares());
  differing.check({}, "");
  ASSERT_TRUE(differing.compares());
  differing.check({Verdict::kDisagrees, "value 0"}, "");
  EXPECT_FALSE(differing.compares()) << "one note: no comparing after it";
  static tang::ExerciseSwitch stopping("09a", "stopping_function");  // yours throws twice
  ASSERT_TRUE(stopping.compares());
  stopping.check({}, "");
  ASSERT_TRUE(stopping.compares());
  ASSERT_TRUE(stopping.compares());
  const std::string summary = tang::exercise_summary();
  EXPECT_NE(summary.find("exercise 09a (matching_function): yours matched the reference on all 3 "
                         "calls\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("exercise 09a (differing_function): yours matched the reference on 1 "
                         "call, then differed at call 2 (the note on stderr); the run went on with "
                         "yours, 3 calls in all\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("exercise 09a (stopping_function): yours matched the reference on 1 of "
                         "3 calls; 2 stopped with an error (printed where it happened)\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("exercise 09b: yours did not run"), std::string::npos) << summary;
  EXPECT_NE(notes.str().find("call 2 of the run"), std::string::npos) << notes.str();
  tang::choose_exercise_code("");
  EXPECT_EQ(tang::exercise_summary(), "") << "nothing without --yours";
}

TEST(CompareFloats, SameBitsRoundingOrDisagreement) {
  const std::vector<float> theirs{0.5f, 0.25f, 0.25f};
  EXPECT_EQ(tang::compare_floats(theirs, theirs, 0.0f).kind, Verdict::kSame);
  const std::vector<float> nudged{0.5f, 0.25f + 3e-8f, 0.25f};
  EXPECT_EQ(tang::compare_floats(nudged, theirs, 1e-6f).kind, Verdict::kRounding);
  EXPECT_EQ(tang::compare_floats(nudged, theirs, 0.0f).kind, Verdict::kDisagrees);
  // 3 digits would print both as 0.25: the note shows enough digits to tell them apart
  EXPECT_NE(
      tang::compare_floats(nudged, theirs, 1e-6f).detail.find("yours 0.25000003, theirs 0.25"),
      std::string::npos)
      << tang::compare_floats(nudged, theirs, 1e-6f).detail;
  const std::vector<float> wrong{0.5f, 0.5f, 0.0f};
  const Verdict v = tang::compare_floats(wrong, theirs, 1e-6f);
  EXPECT_EQ(v.kind, Verdict::kDisagrees);
  EXPECT_NE(v.detail.find("value 1"), std::string::npos) << v.detail;  // the first largest gap
  const std::vector<float> nan{0.5f, std::nanf(""), 0.25f};
  EXPECT_EQ(tang::compare_floats(nan, theirs, 1.0f).kind, Verdict::kDisagrees);
  EXPECT_EQ(tang::compare_floats({theirs.data(), 2}, theirs, 1.0f).kind, Verdict::kDisagrees);
}

// A reference draw with its border between ids 0 and 1 at 0.5.
tang::TokenId border_at_half(float coin) {
  return coin < 0.5f ? 0 : 1;
}

TEST(CompareDraws, ANearbyCoinIsRoundingAFarOneIsNot) {
  EXPECT_EQ(tang::compare_draws(0, 0, 0.3f, border_at_half).kind, Verdict::kSame);
  // yours put the border 2^-20 lower: a coin just above it is yours 1, theirs 0
  const float coin = 0.5f - 1.0f / 4194304.0f;
  EXPECT_EQ(tang::compare_draws(1, border_at_half(coin), coin, border_at_half).kind,
            Verdict::kRounding);
  // the border 0.1 away: no coin within 1e-4 makes theirs yours
  const Verdict far = tang::compare_draws(1, 0, 0.4f, border_at_half);
  EXPECT_EQ(far.kind, Verdict::kDisagrees);
  EXPECT_NE(far.detail.find("no coin within 1e-04"), std::string::npos) << far.detail;
}

using OneNote = ChoiceReset;

TEST_F(OneNote, TheFirstDifferenceOnlyWithTheCommandToRun) {
  std::ostringstream notes;
  tang::choose_exercise_code("03", /*compare=*/true, &notes);
  tang::ExerciseSwitch use("03", "top_p_filter");
  ASSERT_TRUE(use.yours());
  ASSERT_TRUE(use.compares());
  use.check({}, "p 0.90");  // the same: no note
  EXPECT_EQ(notes.str(), "");
  ASSERT_TRUE(use.compares());
  use.check({Verdict::kRounding, "up to 3e-08 apart"}, "p 0.90");
  const std::string note = notes.str();
  EXPECT_EQ(note.rfind("note: exercise 03 (top_p_filter, call 2 of the run: p 0.90): ", 0), 0u)
      << note;
  EXPECT_NE(note.find("only by rounding (up to 3e-08 apart)"), std::string::npos) << note;
  EXPECT_NE(note.find("ctest --preset yours -L '^yours_03$'"), std::string::npos) << note;
  EXPECT_FALSE(use.compares()) << "after its note the switch stops running the reference";
  use.check({Verdict::kDisagrees, "again"}, "");
  EXPECT_EQ(notes.str(), note) << "one note per function";
}

TEST_F(OneNote, NoneWhenTheTestsJudgeAlone) {
  tang::choose_exercise_code("03", /*compare=*/false);
  tang::ExerciseSwitch use("03", "top_p_filter");
  EXPECT_TRUE(use.yours());
  EXPECT_FALSE(use.compares());
}

// Two versions of a function that adds to a cache in place, as exercise 06a's
// step appends to its cache: the reference adds 1, "yours" 2.
void add_one(float* cache, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) cache[i] += 1.0f;
}
void add_two(float* cache, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) cache[i] += 2.0f;
}
int plus_zero(int x) {
  return x;
}
int plus_one(int x) {
  return x + 1;
}

using GenericSwitch = ChoiceReset;

TEST_F(GenericSwitch, WritesRunsBothFromTheSameStartAndKeepsYours) {
  std::ostringstream notes;
  tang::choose_exercise_code("06a", true, &notes);
  tang::ExerciseSwitch use("06a", "add");
  std::vector<float> cache = {1.0f, 2.0f, 3.0f};
  const tang::ExerciseSwitch::Written written[] = {{cache, 0.0f, "cache"}};
  const auto inputs = [] { return std::string("3 values"); };
  use.writes(written, add_one, add_one, inputs, cache.data(), cache.size());
  EXPECT_EQ(cache, (std::vector<float>{2.0f, 3.0f, 4.0f})) << "put back before yours ran";
  EXPECT_EQ(notes.str(), "");
  use.writes(written, add_one, add_two, inputs, cache.data(), cache.size());
  EXPECT_EQ(cache, (std::vector<float>{4.0f, 5.0f, 6.0f})) << "yours is what stays";
  EXPECT_NE(notes.str().find("call 2 of the run: 3 values): yours and the reference solution "
                             "disagree (cache, value 0: yours 4"),
            std::string::npos)
      << notes.str();
}

TEST_F(GenericSwitch, WritesRunsTheReferenceAloneWhenYoursIsNotChosen) {
  tang::choose_exercise_code("");
  tang::ExerciseSwitch use("06a", "add");
  std::vector<float> cache = {1.0f};
  const tang::ExerciseSwitch::Written written[] = {{cache}};
  use.writes(
      written, add_one, add_two, [] { return std::string(); }, cache.data(), cache.size());
  EXPECT_EQ(cache, (std::vector<float>{2.0f}));
}

TEST_F(GenericSwitch, ReturnsYoursComparedWithTheReferences) {
  std::ostringstream notes;
  tang::choose_exercise_code("06c", true, &notes);
  tang::ExerciseSwitch use("06c", "plus");
  const auto numbers = [](int yours, int theirs) {
    return tang::compare_numbers(yours, theirs, 0.0, 0);
  };
  EXPECT_EQ(use.returns(
                plus_zero, plus_one, numbers, [] { return std::string("x 5"); }, 5),
            6);
  EXPECT_NE(notes.str().find("(plus, call 1 of the run: x 5): yours and the reference solution "
                             "disagree (yours 6, theirs 5)"),
            std::string::npos)
      << notes.str();
  tang::choose_exercise_code("");
  EXPECT_EQ(use.returns(
                plus_zero, plus_one, numbers, [] { return std::string(); }, 5),
            5);
}

TEST(CompareNumbers, EqualWithinTheRelativeRoundingOrNot) {
  EXPECT_EQ(tang::compare_numbers(2.0, 2.0, 0.0, 0).kind, Verdict::kSame);
  EXPECT_EQ(tang::compare_numbers(1.0 + 1e-12, 1.0, 1e-9, 6).kind, Verdict::kRounding);
  const Verdict off = tang::compare_numbers(1.5, 1.0, 1e-9, 1, "bytes");
  EXPECT_EQ(off.kind, Verdict::kDisagrees);
  EXPECT_EQ(off.detail, "bytes: yours 1.5, theirs 1.0");
}

}  // namespace
