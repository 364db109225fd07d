// lessons_test: runs the lesson executables as a learner would and checks what they print.
//
// Built twice from this file (tests/CMakeLists.txt):
//   lessons_test             (label lessons)     lesson N prints sections 1..N, lesson 06
//                                                 its checks, table and memory lines, and
//                                                 the same seed prints the same text twice
//   lessons_robustness_test  (label robustness)  every bad flag ends as exit != 0 and ONE
//                                                 "error:" line on stderr naming the problem
//
// The lessons read data/tang_gpt.safetensors. The trainer may rewrite that file while the
// tests run, so every test works on its own copy; tests that need it are skipped when the
// model has not been trained yet.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::string kModel = std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";

struct Lesson {
  int number;
  const char* path;
};
void PrintTo(const Lesson& lesson, std::ostream* os) { *os << fs::path(lesson.path).filename().string(); }

const Lesson kLessons[] = {{1, TANG_LESSON_01}, {2, TANG_LESSON_02}, {3, TANG_LESSON_03},
                           {4, TANG_LESSON_04}, {5, TANG_LESSON_05}, {6, TANG_LESSON_06}};

struct Outcome {
  int status = -1;  // exit status; 128 + signal when killed by one
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string shell_quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A scratch folder per test process, removed at the end.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("tang_lessons_test_" + std::to_string(::getpid()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TempDir& temp_dir() {
  static TempDir dir;
  return dir;
}

// Runs `exe args...` through the shell, stdout through a pipe, stderr into a file.
Outcome run(const std::string& exe, const std::vector<std::string>& args) {
  const fs::path err_path = temp_dir().path() / "stderr.txt";
  std::string command = shell_quote(exe);
  for (const std::string& a : args) {
    command += ' ';
    command += shell_quote(a);
  }
  command += " 2>";
  command += shell_quote(err_path.string());
  command += " </dev/null";
  Outcome result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "popen failed for " << command;
    return result;
  }
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) {
    result.status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.status = 128 + WTERMSIG(status);
  }
  result.err = read_file(err_path);
  return result;
}

// Our own copy of the trained model, so that a trainer writing a newer one
// between two runs cannot make the same seed look non-deterministic.
const std::string& model_copy() {
  static const std::string copy = [] {
    const fs::path target = temp_dir().path() / "tang_gpt.safetensors";
    fs::copy_file(kModel, target, fs::copy_options::overwrite_existing);
    return target.string();
  }();
  return copy;
}

#define REQUIRE_MODEL()                                                                   \
  do {                                                                                    \
    if (!fs::exists(kModel)) GTEST_SKIP() << kModel << " is missing: train the model first"; \
  } while (0)

// Runs a lesson on the copy of the model; more flags after it.
Outcome run_lesson(const Lesson& lesson, std::vector<std::string> args = {}) {
  args.insert(args.begin(), {"--checkpoint", model_copy()});
  return run(lesson.path, args);
}

// The printed sections: "== N. title" lines and the text up to the next one.
struct Section {
  std::string heading;
  std::vector<std::string> lines;
};

[[maybe_unused]] std::vector<Section> sections_of(const std::string& out) {
  std::vector<Section> sections;
  for (const std::string& line : lines_of(out)) {
    if (line.rfind("== ", 0) == 0) {
      sections.push_back({line, {}});
    } else if (!sections.empty()) {
      sections.back().lines.push_back(line);
    }
  }
  // The blank line before the next heading separates sections; it belongs to neither.
  for (Section& section : sections) {
    while (!section.lines.empty() && section.lines.back().empty()) section.lines.pop_back();
  }
  return sections;
}

// Lines that hold a time (the table rows of section 6) change from run to run.
bool is_timing_line(const std::string& line) {
  static const std::regex time(R"([0-9.]+ ms)");
  return std::regex_search(line, time);
}

[[maybe_unused]] std::vector<std::string> without_timings(const std::vector<std::string>& lines) {
  std::vector<std::string> kept;
  for (const std::string& line : lines) {
    if (!is_timing_line(line)) kept.push_back(line);
  }
  return kept;
}

std::string describe(const Outcome& r) {
  return "exit status " + std::to_string(r.status) + "\n--- stdout:\n" + r.out + "--- stderr:\n" + r.err;
}

#ifndef TANG_LESSONS_ROBUSTNESS

// --- each lesson prints its sections -----------------------------------------------

class EachLesson : public ::testing::TestWithParam<Lesson> {};

TEST_P(EachLesson, PrintsSectionsOneToNAndTheSameTextTwice) {
  REQUIRE_MODEL();
  const Lesson& lesson = GetParam();
  const Outcome first = run_lesson(lesson);
  ASSERT_EQ(first.status, 0) << describe(first);
  EXPECT_EQ(first.err, "") << "a successful run prints nothing on stderr";

  const std::string name = fs::path(lesson.path).filename().string();
  ASSERT_FALSE(first.out.empty());
  EXPECT_EQ(lines_of(first.out)[0].rfind(name + ": 4 layers, 4 heads, 128 dims, context 128, vocabulary ", 0), 0u)
      << "header: " << lines_of(first.out)[0];

  const auto sections = sections_of(first.out);
  ASSERT_EQ(sections.size(), static_cast<std::size_t>(lesson.number)) << first.out;
  for (int i = 0; i < lesson.number; ++i) {
    const std::string expected = "== " + std::to_string(i + 1) + ". ";
    EXPECT_EQ(sections[static_cast<std::size_t>(i)].heading.rfind(expected, 0), 0u)
        << "section " << i + 1 << " heading: " << sections[static_cast<std::size_t>(i)].heading;
    EXPECT_GT(sections[static_cast<std::size_t>(i)].lines.size(), 1u) << "section " << i + 1 << " is empty";
  }

  // Determinism: the same seed writes the same text (section 6: all but the timings).
  const Outcome second = run_lesson(lesson);
  ASSERT_EQ(second.status, 0) << describe(second);
  const auto again = sections_of(second.out);
  ASSERT_EQ(again.size(), sections.size());
  for (std::size_t i = 0; i < sections.size(); ++i) {
    EXPECT_EQ(again[i].heading, sections[i].heading);
    if (i < 5) {
      EXPECT_EQ(again[i].lines, sections[i].lines) << "section " << i + 1 << " changed between two runs";
    } else {
      EXPECT_EQ(without_timings(again[i].lines), without_timings(sections[i].lines))
          << "section 6 (timings aside) changed between two runs";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Lessons, EachLesson, ::testing::ValuesIn(kLessons),
                         [](const auto& info) { return "Lesson0" + std::to_string(info.param.number); });

// Lesson N's sections are those of lesson N+1: every section starts from --seed.
TEST(Lessons, EverySectionPrintsTheSameInEveryLesson) {
  REQUIRE_MODEL();
  const Outcome five = run_lesson(kLessons[4]);
  const Outcome six = run_lesson(kLessons[5]);
  ASSERT_EQ(five.status, 0) << describe(five);
  ASSERT_EQ(six.status, 0) << describe(six);
  const auto a = sections_of(five.out), b = sections_of(six.out);
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 6u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(a[i].heading, b[i].heading);
    EXPECT_EQ(a[i].lines, b[i].lines) << "section " << i + 1;
  }
}

TEST(Lessons, SectionOnePrintsTheCorpusCheck) {
  REQUIRE_MODEL();
  const Outcome r = run_lesson(kLessons[0]);
  ASSERT_EQ(r.status, 0) << describe(r);
  for (const char* prompt : {"「白日依山尽，黄河入海」 →", "「床前明月光，疑是地上」 →", "「春风」 →"}) {
    EXPECT_NE(r.out.find(prompt), std::string::npos) << prompt << "\n" << r.out;
  }
  // The corpus numbers are fixed by data/tang_poems.txt (SPEC: 141 of 992 = 14.2%).
  EXPECT_NE(r.out.find("in the poems: 141 of 992 times =  14.2%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the model:"), std::string::npos) << r.out;
}

TEST(Lessons, LessonSixChecksTheCacheTimesItAndPricesIt) {
  REQUIRE_MODEL();
  const Outcome r = run_lesson(kLessons[5]);
  ASSERT_EQ(r.status, 0) << describe(r);
  const auto sections = sections_of(r.out);
  ASSERT_EQ(sections.size(), 6u);
  std::string six;
  for (const std::string& line : sections[5].lines) six += line + "\n";

  EXPECT_NE(six.find("120 characters without and with the cache: IDENTICAL"), std::string::npos) << six;
  EXPECT_EQ(six.find("DIFFERENT"), std::string::npos) << six;

  for (const char* n : {"32", "64", "120"}) {
    const std::regex row(std::string(R"(^ +)") + n + R"( +[0-9]+\.[0-9]{2} ms +[0-9]+\.[0-9]{2} ms +[0-9]+\.[0-9]x$)");
    int rows = 0;
    for (const std::string& line : sections[5].lines) rows += std::regex_match(line, row) ? 1 : 0;
    EXPECT_EQ(rows, 1) << "timing row for " << n << " characters\n" << six;
  }
  EXPECT_NE(six.find("median of 5 runs"), std::string::npos);

  // 2 x 4 layers x 128 dims x 4 bytes = 4 KB a character; 128 of them = 512 KB.
  EXPECT_NE(six.find("Cache memory of this model: 2 (k, v) x 4 layers x 128 dims x 4 bytes = 4.0 KB per "
                     "character, 512.0 KB for the full context of 128"),
            std::string::npos)
      << six;
  // Published configs: per token = 2 x layers x kv_heads x head_dim x 2 bytes (MLA:
  // layers x (512 + 64) x 2); a 128K context is 131072 tokens.
  const std::vector<std::pair<std::string, std::string>> models = {
      {"GPT-3 175B", "4.5 MB +576.0 GB"},       {"Llama 2 7B", "512.0 KB +64.0 GB"},
      {"Llama 2 70B", "320.0 KB +40.0 GB"},     {"Llama 3 8B", "128.0 KB +16.0 GB"},
      {"DeepSeek-V3 671B", "68.6 KB +8.6 GB"}};
  for (const auto& [model, numbers] : models) {
    const std::regex line(" +" + model + " .* +" + numbers + "$");
    bool found = false;
    for (const std::string& l : sections[5].lines) found = found || std::regex_search(l, line);
    EXPECT_TRUE(found) << model << " " << numbers << "\n" << six;
  }
}

TEST(Lessons, GreedyRunsAndIsRepeatable) {
  REQUIRE_MODEL();
  const Outcome a = run_lesson(kLessons[5], {"--temperature", "0"});
  const Outcome b = run_lesson(kLessons[5], {"--temperature", "0"});
  ASSERT_EQ(a.status, 0) << describe(a);
  ASSERT_EQ(b.status, 0) << describe(b);
  EXPECT_EQ(a.err, "");
  EXPECT_EQ(without_timings(lines_of(a.out)), without_timings(lines_of(b.out)));
  const auto sections = sections_of(a.out);
  ASSERT_EQ(sections.size(), 6u);
  // Section 2: one block, "T = 0.0 (greedy)", and greedy writes the same poem three times.
  const auto& two = sections[1].lines;
  const auto heading = std::find(two.begin(), two.end(), "  T = 0.0 (greedy)");
  ASSERT_NE(heading, two.end()) << a.out;
  ASSERT_GE(two.end() - heading, 4);
  EXPECT_EQ(heading[1], heading[2]);
  EXPECT_EQ(heading[2], heading[3]);
  EXPECT_NE(a.out.find("IDENTICAL"), std::string::npos);
}

TEST(Lessons, ALongPromptKeepsItsLast128Characters) {
  REQUIRE_MODEL();
  std::string prompt;
  for (int i = 0; i < 11; ++i) prompt += "床前明月光，疑是地上霜。";  // 132 characters
  for (const Lesson& lesson : {kLessons[0], kLessons[3]}) {
    const Outcome r = run_lesson(lesson, {"--prompt", prompt});
    ASSERT_EQ(r.status, 0) << describe(r);
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("the prompt has 132 characters; the model reads at most 128, so it keeps the last 128"),
              std::string::npos)
        << r.out;
  }
}

#else  // TANG_LESSONS_ROBUSTNESS

// --- bad command lines: one "error:" line, exit status != 0 ------------------------

struct BadFlags {
  const char* name;
  std::vector<std::string> args;
  std::vector<std::string> names;  // what the error line must mention
  bool needs_model;                // found only once the model is loaded
};

void PrintTo(const BadFlags& bad, std::ostream* os) {
  for (const std::string& a : bad.args) *os << shell_quote(a) << " ";
}

// The error must be exactly one line on stderr, start with "error:" and name the problem.
void expect_one_error_line(const Outcome& r, const std::vector<std::string>& names) {
  EXPECT_TRUE(r.status == 1 || r.status == 2) << "exit 1 (bad input) or 2 (bad flag), not a crash\n"
                                                << describe(r);
  ASSERT_FALSE(r.err.empty()) << describe(r);
  EXPECT_EQ(r.err.back(), '\n') << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1u) << "exactly one line on stderr:\n" << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  for (const std::string& n : names) EXPECT_NE(r.err.find(n), std::string::npos) << "should name " << n << ": " << r.err;
  EXPECT_EQ(r.out.find("error"), std::string::npos) << "errors go to stderr:\n" << r.out;
}

const std::vector<BadFlags>& bad_flags() {
  static const std::vector<BadFlags> cases = {
      {"TemperatureNotANumber", {"--temperature", "abc"}, {"--temperature", "abc"}, false},
      {"TemperatureTrailingJunk", {"--temperature", "1.5x"}, {"--temperature", "1.5x"}, false},
      {"TemperatureNegative", {"--temperature", "-1"}, {"--temperature", "-1"}, false},
      {"TemperatureTooHigh", {"--temperature", "11"}, {"--temperature", "11"}, false},
      {"TemperatureNaN", {"--temperature", "nan"}, {"--temperature"}, false},
      {"TopKNegative", {"--top-k", "-3"}, {"--top-k", "-3"}, false},
      {"TopKFraction", {"--top-k", "2.5"}, {"--top-k", "2.5"}, false},
      {"TopPZero", {"--top-p", "0"}, {"--top-p"}, false},
      {"TopPTooHigh", {"--top-p", "1.5"}, {"--top-p", "1.5"}, false},
      {"TopPNaN", {"--top-p", "nan"}, {"--top-p"}, false},
      {"LengthZero", {"--length", "0"}, {"--length"}, false},
      {"SeedNegative", {"--seed", "-1"}, {"--seed", "-1"}, false},
      {"SeedNotANumber", {"--seed", "x"}, {"--seed"}, false},
      {"SeedTooLarge", {"--seed", "18446744073709551616"}, {"--seed"}, false},  // 2^64
      {"PromptEmpty", {"--prompt", ""}, {"--prompt", "empty"}, false},
      {"HeadsEmpty", {"--heads", ""}, {"--heads", "empty"}, false},
      {"UnknownFlag", {"--foo"}, {"--foo"}, false},
      {"MissingValue", {"--temperature"}, {"--temperature"}, false},
      {"CheckpointMissing", {"--checkpoint", "/nonexistent/tang_gpt.safetensors"}, {"/nonexistent/tang_gpt.safetensors"}, false},
      {"PromptUnknownCharacter", {"--prompt", "hello"}, {"'h'"}, true},
  };
  return cases;
}

class BadCommandLine : public ::testing::TestWithParam<std::tuple<Lesson, BadFlags>> {};

TEST_P(BadCommandLine, EndsInOneErrorLine) {
  const auto& [lesson, bad] = GetParam();
  if (bad.needs_model) REQUIRE_MODEL();
  std::vector<std::string> args = bad.args;
  // A model on the command line before the bad flag (unless the bad flag is the model):
  // so a flag error never depends on whether the shipped model exists.
  if (args[0] != "--checkpoint" && fs::exists(kModel)) args.insert(args.begin(), {"--checkpoint", model_copy()});
  expect_one_error_line(run(lesson.path, args), bad.names);
}

INSTANTIATE_TEST_SUITE_P(
    Lessons, BadCommandLine,
    ::testing::Combine(::testing::Values(kLessons[5], kLessons[0], kLessons[2]), ::testing::ValuesIn(bad_flags())),
    [](const auto& info) {
      return "Lesson0" + std::to_string(std::get<0>(info.param).number) + "_" + std::get<1>(info.param).name;
    });

TEST(BadCommandLine, UnknownHeadCharacterIsNamed) {
  REQUIRE_MODEL();
  // Section 5 finds it, after sections 1-4 have printed: stdout may hold them.
  const Outcome r = run_lesson(kLessons[5], {"--heads", "ab"});
  expect_one_error_line(r, {"'a'"});
  EXPECT_EQ(r.status, 1);
}

TEST(BadCommandLine, TruncatedCheckpointIsNamed) {
  REQUIRE_MODEL();
  const std::string bytes = read_file(model_copy());
  ASSERT_GT(bytes.size(), 1000u);
  const fs::path truncated = temp_dir().path() / "truncated.safetensors";
  {
    std::ofstream out(truncated, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  for (const Lesson& lesson : {kLessons[5], kLessons[0]}) {
    const Outcome r = run(lesson.path, {"--checkpoint", truncated.string()});
    expect_one_error_line(r, {truncated.string(), "truncated"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "") << "nothing is printed before the model is loaded";
  }
}

TEST(BadCommandLine, HelpListsEveryFlag) {
  for (const Lesson& lesson : kLessons) {
    const Outcome r = run(lesson.path, {"--help"});
    EXPECT_EQ(r.status, 0) << describe(r);
    EXPECT_EQ(r.err, "");
    for (const char* flag : {"--checkpoint", "--seed", "--temperature", "--top-k", "--top-p", "--prompt",
                             "--heads", "--length"}) {
      EXPECT_NE(r.out.find(flag), std::string::npos) << lesson.path << " --help should list " << flag;
    }
  }
}

#endif  // TANG_LESSONS_ROBUSTNESS

}  // namespace
