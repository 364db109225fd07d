// flag_values_test: every number flag of every program refuses a bad value in the
// course's words, as --seed does: one line on stderr, "error: --budget-texts 0: must be
// a whole number in [2, 500], in decimal digits", exit status 2, nothing on stdout
// (common/program.cpp, run_program). CLI11 alone answered "Value 0 not in range 2 to
// 500", and took --clip nan.
//
// Each flag gets the values a learner tries: 0 or -1 below its range, one past it, a
// number no type holds, text, and for the numbers nan and 1e400. No program starts its
// work: every flag is checked before it loads a model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "run_command.hpp"

namespace {

namespace fs = std::filesystem;
using tang_tests::Outcome;

struct BadValue {
  const char* program;  // its path
  std::string flag, value;
  std::string taken;  // what the error line must say is taken
};

void PrintTo(const BadValue& bad, std::ostream* os) {
  *os << fs::path(bad.program).filename().string() << " " << bad.flag << " '" << bad.value << "'";
}

// The values of one flag: below its range, past it, too large for any type, text.
void add_whole(std::vector<BadValue>& all, const char* program, const std::string& flag,
               const std::string& low, const std::string& past, const std::string& range) {
  const std::string taken = "a whole number in " + range + ", in decimal digits";
  for (const std::string& value :
       {low, past, std::string("-1"), std::string("99999999999999999999"), std::string("many"),
        std::string("2.5"), std::string("0x10")})
    all.push_back({program, flag, value, taken});
}
void add_number(std::vector<BadValue>& all, const char* program, const std::string& flag,
                const std::string& past, const std::string& range) {
  for (const std::string& value :
       {past, std::string("-1"), std::string("nan"), std::string("1e400"), std::string("hot")})
    all.push_back({program, flag, value, "a number in " + range});
}

const std::vector<BadValue>& bad_values() {
  static const std::vector<BadValue> all = [] {
    std::vector<BadValue> v;
    // every lesson's own flags (lesson 06's are every lesson's)
    add_number(v, TANG_LESSON_06, "--temperature", "11", "[0, 10]");
    add_whole(v, TANG_LESSON_06, "--top-k", "-2", "100001", "[0, 100000]");
    add_number(v, TANG_LESSON_06, "--top-p", "1.5", "(0, 1]");
    v.push_back({TANG_LESSON_06, "--top-p", "0", "a number in (0, 1]"});
    add_whole(v, TANG_LESSON_06, "--length", "0", "10001", "[1, 10000]");
    add_whole(v, TANG_LESSON_06, "--section", "0", "7", "[1, 6]");
    add_whole(v, TANG_LESSON_07, "--beam", "0", "65", "[1, 64]");
    add_whole(v, TANG_LESSON_08, "--batch", "0", "65", "[1, 64]");
    add_whole(v, TANG_LESSON_09, "--poems", "0", "2001", "[1, 2000]");
    add_whole(v, TANG_LESSON_10, "--variant-poems", "0", "2001", "[1, 2000]");
    add_whole(v, TANG_LESSON_10, "--heldout-poems", "-3", "100001", "[0, 100000]");
    add_whole(v, TANG_LESSON_11, "--requests", "0", "2001", "[1, 2000]");
    add_whole(v, TANG_LESSON_13, "--budget-texts", "0", "501", "[2, 500]");
    // the programs beside the lessons
    add_whole(v, TANG_POEM_SERVER, "--port", "-2", "65536", "[0, 65535]");
    add_whole(v, TANG_POEM_SERVER, "--blocks", "0", "1000001", "[8, 1000000]");
    add_whole(v, TANG_POEM_SERVER, "--max-batch", "0", "257", "[1, 256]");
    add_whole(v, TANG_POEM_SERVER, "--max-texts", "0", "4097", "[1, 4096]");
    add_whole(v, TANG_POEM_SERVER, "--timeout", "0", "601", "[1, 600]");
    add_whole(v, TANG_POEM_SERVER, "--max-connections", "0", "100001", "[1, 100000]");
    add_number(v, TANG_POEM_SERVER, "--drain", "601", "[0, 600]");
    add_whole(v, TANG_SERVE_BENCH, "--requests", "0", "100001", "[1, 100000]");
    add_whole(v, TANG_MEASURE_WEIGHTS, "--poems", "0", "100001", "[1, 100000]");
    add_whole(v, TANG_MEASURE_SETTINGS, "--poems", "0", "10001", "[1, 10000]");
    add_whole(v, TANG_MEASURE_VERSE, "--poems", "0", "100001", "[1, 100000]");
    add_whole(v, TANG_MEASURE_VERSE, "--beam", "0", "65", "[1, 64]");
    add_whole(v, TANG_DISTRIBUTION_TABLE, "--count", "0", "201", "[1, 200]");
    // the trainer
    add_whole(v, TANG_TRAINER, "--steps", "0", "10000001", "[1, 10000000]");
    add_whole(v, TANG_TRAINER, "--stop-at", "0", "10000001", "[1, 10000000]");
    add_whole(v, TANG_TRAINER, "--warmup", "-2", "1000001", "[0, 1000000]");
    add_whole(v, TANG_TRAINER, "--batch", "0", "4097", "[1, 4096]");
    add_whole(v, TANG_TRAINER, "--block-size", "1", "4097", "[2, 4096]");
    add_whole(v, TANG_TRAINER, "--layers", "0", "65", "[1, 64]");
    add_whole(v, TANG_TRAINER, "--heads", "0", "65", "[1, 64]");
    add_whole(v, TANG_TRAINER, "--dims", "0", "4097", "[1, 4096]");
    add_whole(v, TANG_TRAINER, "--kv-heads", "-2", "65", "[0, 64]");
    add_whole(v, TANG_TRAINER, "--kv-latent", "-2", "4097", "[0, 4096]");
    add_whole(v, TANG_TRAINER, "--eval-every", "0", "10000001", "[1, 10000000]");
    add_whole(v, TANG_TRAINER, "--save-every", "0", "10000001", "[1, 10000000]");
    add_whole(v, TANG_TRAINER, "--print-every", "0", "10000001", "[1, 10000000]");
    add_whole(v, TANG_TRAINER, "--threads", "0", "1025", "[1, 1024]");
    add_number(v, TANG_TRAINER, "--lr", "1.5", "[0, 1]");
    add_number(v, TANG_TRAINER, "--min-lr", "1.5", "[0, 1]");
    add_number(v, TANG_TRAINER, "--weight-decay", "1.5", "[0, 1]");
    add_number(v, TANG_TRAINER, "--dropout", "0.95", "[0, 0.9]");
    for (const std::string value : {"0", "-1", "nan", "1e400", "hot"})
      v.push_back({TANG_TRAINER, "--clip", value, "a number above 0"});
    // whole numbers without a range: decimal digits
    for (const std::string value : {"-1", "0x10", "many"})
      v.push_back({TANG_SERVE_BENCH, "--seed", value, "a whole number in decimal digits"});
    return v;
  }();
  return all;
}

class FlagValues : public ::testing::TestWithParam<BadValue> {};

TEST_P(FlagValues, ABadValueIsOneLineInTheCourseWords) {
  const BadValue& bad = GetParam();
  const fs::path scratch =
      fs::temp_directory_path() / ("flag_values_test_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  // --flag=value: a value starting with '-' is the flag's, not another flag
  const Outcome r = tang_tests::run_command(
      tang_tests::command_line(bad.program, {bad.flag + "=" + bad.value}), scratch);
  fs::remove_all(scratch);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "") << "every flag is checked before the program prints";
  EXPECT_EQ(r.err, "error: " + bad.flag + " " + bad.value + ": must be " + bad.taken + "\n");
}

INSTANTIATE_TEST_SUITE_P(EveryProgram, FlagValues, ::testing::ValuesIn(bad_values()),
                         [](const auto& info) {
                           std::string name = fs::path(info.param.program).filename().string() +
                                              "_" + info.param.flag + "_" + info.param.value;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name + "_" + std::to_string(info.index);
                         });

// A flag without its value, or a flag of one value given twice, is named as such
// (CLI11: "--temperature: 1 required FLOAT:FLOAT in [0 - 10] missing").
TEST(FlagValues, AMissingValueOrAFlagGivenTwiceIsNamed) {
  const fs::path scratch =
      fs::temp_directory_path() / ("flag_values_twice_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const Outcome missing =
      tang_tests::run_command(tang_tests::command_line(TANG_LESSON_06, {"--temperature"}), scratch);
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err,
            "error: --temperature needs a value (run lesson_06_kvcache --help for the flags)\n");
  const Outcome twice = tang_tests::run_command(
      tang_tests::command_line(TANG_LESSON_13, {"--budget-texts", "20", "--budget-texts", "30"}),
      scratch);
  EXPECT_EQ(twice.status, 2);
  EXPECT_EQ(twice.err,
            "error: --budget-texts is given more than once: give it once (run "
            "lesson_13_cache_budget --help for the flags)\n");
  fs::remove_all(scratch);
}

// A value of the flag's own kind within its range is taken: the check refuses only
// what it should (with --help the programs print their help and stop, running nothing).
TEST(FlagValues, GoodValuesAreTaken) {
  const fs::path scratch =
      fs::temp_directory_path() / ("flag_values_good_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const std::vector<std::pair<const char*, std::string>> good = {
      {TANG_LESSON_06, "--temperature=0"},
      {TANG_LESSON_06, "--temperature=10"},
      {TANG_LESSON_06, "--temperature=0.7"},
      {TANG_LESSON_06, "--top-k=0"},
      {TANG_LESSON_06, "--top-k=100000"},
      {TANG_LESSON_06, "--top-p=1"},
      {TANG_LESSON_06, "--top-p=1e-6"},
      {TANG_LESSON_06, "--length=10000"},
      {TANG_LESSON_06, "--section=6"},
      {TANG_LESSON_13, "--budget-texts=2"},
      {TANG_TRAINER, "--clip=0.5"},
      {TANG_TRAINER, "--dropout=0.9"},
      {TANG_TRAINER, "--steps=10000000"},
      {TANG_POEM_SERVER, "--port=0"},
      {TANG_SERVE_BENCH, "--seed=18446744073709551615"},
  };
  for (const auto& [program, arg] : good) {
    const Outcome r =
        tang_tests::run_command(tang_tests::command_line(program, {arg, "--help"}), scratch);
    EXPECT_EQ(r.status, 0) << arg << ": " << r.err;
    EXPECT_EQ(r.err, "") << arg;
  }
  fs::remove_all(scratch);
}

}  // namespace
