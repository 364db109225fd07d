// Tests of the shipped corpus data/tang_poems.txt (see data/README.md).
//
// This one source file builds two test executables (tests/CMakeLists.txt):
//   corpus_test          (label "corpus"): the invariants of the shipped file, every line
//                        checked, and its numbers compared with data/README.md; also the
//                        error messages of prepare_corpus (missing folder, bad JSON);
//   corpus_rebuild_test  (label "corpus_rebuild", compiled with TANG_CORPUS_REBUILD_TEST):
//                        runs prepare_corpus on the cached npm package and checks that the
//                        result is byte-identical to the shipped file. Skipped when the
//                        package is not cached; CI can leave it out with -LE corpus_rebuild.

#include <gtest/gtest.h>
#include <unistd.h>  // getpid

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sha256.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kDataDir = TANG_DATA_DIR;
const fs::path kCorpus = kDataDir / "tang_poems.txt";
const fs::path kReadme = kDataDir / "README.md";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

#ifndef TANG_CORPUS_REBUILD_TEST
// ===========================================================================
// corpus_test: invariants of the shipped file
// ===========================================================================
namespace {

using tang_test::sha256_hex;  // tests/sha256.hpp

// --- UTF-8 decoding (strict: no overlong forms, no surrogates) ---------------
std::optional<std::u32string> decode_utf8(const std::string& s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80           ? 0
                  : (c >> 5) == 0x6  ? 1
                  : (c >> 4) == 0xE  ? 2
                  : (c >> 3) == 0x1E ? 3
                                     : -1;
    if (n < 0 || i + n >= s.size()) return std::nullopt;  // bad lead byte or cut off
    char32_t cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
    for (int j = 1; j <= n; ++j) {
      const auto cc = static_cast<unsigned char>(s[i + j]);
      if ((cc & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    out.push_back(cp);
    i += 1 + n;
  }
  return out;
}

bool is_cjk(char32_t c) {
  return c >= 0x4E00 && c <= 0x9FFF;
}

std::string code_point_name(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

// Checks one poem (a line of the file without its '\n'). Returns "" when it is fine,
// otherwise what is wrong.
std::string check_poem(const std::string& bytes) {
  if (bytes.empty()) return "empty line";
  const auto poem = decode_utf8(bytes);
  if (!poem) return "invalid UTF-8";
  if (poem->back() != U'。') return "does not end with 。";
  std::size_t length = 0;  // length of the first sentence, then all must match
  std::size_t current = 0;
  for (char32_t c : *poem) {
    if (c == U'，' || c == U'。') {
      if (current != 5 && current != 7)
        return "a sentence of " + std::to_string(current) + " characters";
      if (length == 0) length = current;
      if (current != length) return "sentences of different lengths";
      current = 0;
    } else if (is_cjk(c)) {
      ++current;
    } else {
      return "a character that is neither CJK nor ，/。: " + code_point_name(c);
    }
  }
  return "";
}

// The numbers data/README.md states, from its "Checked numbers" block:
//   lines of the form "<key> <value>" (e.g. "poems_kept 45390").
std::map<std::string, std::string> readme_numbers() {
  std::map<std::string, std::string> numbers;
  std::istringstream in(read_file(kReadme));
  std::string line;
  for (const char* key : {"poems_kept", "characters", "distinct_characters", "chunfeng",
                          "chunfeng_period", "sha256"}) {
    numbers[key];  // make sure every key exists (empty if absent)
  }
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, value, rest;
    if (words >> key >> value && !(words >> rest) && numbers.count(key)) numbers[key] = value;
  }
  return numbers;
}

std::size_t count_occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++count;
  return count;
}

// Runs prepare_corpus with the given package folder; returns its exit status and
// puts what it wrote on stderr into `stderr_text`.
int run_prepare_corpus(const fs::path& package, const fs::path& out, std::string& stderr_text) {
  const fs::path err =
      fs::temp_directory_path() / ("tang_prepare_corpus_" + std::to_string(::getpid()) + ".err");
  const std::string command = std::string("\"") + TANG_PREPARE_CORPUS + "\" --package-dir \"" +
                              package.string() + "\" --out \"" + out.string() +
                              "\" > /dev/null 2> \"" + err.string() + "\"";
  const int status = std::system(command.c_str());
  stderr_text = read_file(err);
  fs::remove(err);
  return status;
}

class Corpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { text_ = new std::string(read_file(kCorpus)); }
  static void TearDownTestSuite() { delete text_; }
  static const std::string& text() { return *text_; }

 private:
  static inline std::string* text_ = nullptr;
};

TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_F(Corpus, FileExistsAndEndsWithNewline) {
  ASSERT_FALSE(text().empty()) << "missing or empty " << kCorpus
                               << " (scripts/rebuild_corpus.sh builds it)";
  EXPECT_EQ(text().back(), '\n');
  EXPECT_NE(text().rfind("\xEF\xBB\xBF", 0), 0u) << "the file starts with a BOM";
  EXPECT_EQ(text().find('\r'), std::string::npos) << "the file contains \\r";
}

TEST_F(Corpus, EveryPoemIsRegularVerse) {
  std::size_t line_number = 0;
  std::size_t bad = 0;
  std::size_t start = 0;
  while (start < text().size()) {
    std::size_t end = text().find('\n', start);
    if (end == std::string::npos) end = text().size();
    ++line_number;
    const std::string problem = check_poem(text().substr(start, end - start));
    if (!problem.empty() && ++bad <= 10) {
      ADD_FAILURE() << kCorpus.string() << ":" << line_number << ": " << problem;
    }
    start = end + 1;
  }
  EXPECT_EQ(bad, 0u) << "poems that break the rules of data/README.md";
}

TEST_F(Corpus, NumbersMatchReadme) {
  const auto numbers = readme_numbers();
  const auto decoded = decode_utf8(text());
  ASSERT_TRUE(decoded.has_value()) << "the corpus is not valid UTF-8";
  const std::set<char32_t> distinct(decoded->begin(), decoded->end());

  EXPECT_EQ(std::to_string(count_occurrences(text(), "\n")), numbers.at("poems_kept"));
  EXPECT_EQ(std::to_string(decoded->size()), numbers.at("characters"));
  EXPECT_EQ(std::to_string(distinct.size()), numbers.at("distinct_characters"));
  EXPECT_EQ(std::to_string(count_occurrences(text(), "春风")), numbers.at("chunfeng"));
  EXPECT_EQ(std::to_string(count_occurrences(text(), "春风。")), numbers.at("chunfeng_period"));
}

TEST_F(Corpus, Sha256MatchesReadme) {
  EXPECT_EQ(sha256_hex(text()), readme_numbers().at("sha256"))
      << "data/tang_poems.txt changed; if on purpose, update data/README.md";
}

// The lessons quote these numbers, so they are fixed here as well.
TEST_F(Corpus, NumbersTheLessonsQuote) {
  EXPECT_EQ(count_occurrences(text(), "\n"), 44717u);
  EXPECT_EQ(count_occurrences(text(), "春风"), 969u);
  EXPECT_EQ(count_occurrences(text(), "春风。"), 134u);
  EXPECT_NE(text().find("床前看月光，疑是地上霜。举头望山月，低头思故乡。\n"), std::string::npos);
}

std::vector<std::string> poems_of(const std::string& text) {
  std::vector<std::string> poems;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) poems.push_back(line);
  return poems;
}

TEST_F(Corpus, NoPoemTwice) {
  const auto poems = poems_of(text());
  std::map<std::string, std::size_t> first_line;  // poem -> its line number
  std::size_t copies = 0;
  for (std::size_t i = 0; i < poems.size(); ++i) {
    const auto [it, is_new] = first_line.emplace(poems[i], i + 1);
    if (!is_new && ++copies <= 5) {
      ADD_FAILURE() << "line " << i + 1 << " repeats line " << it->second << ": " << poems[i];
    }
  }
  EXPECT_EQ(copies, 0u);
}

// The trainer holds out the poems with index % 20 == 0 (lessons/00_train):
// none of them may also be a training poem, or the held-out loss measures memory.
TEST_F(Corpus, NoHeldOutPoemIsAlsoATrainingPoem) {
  const auto poems = poems_of(text());
  std::set<std::string> training;
  for (std::size_t i = 0; i < poems.size(); ++i) {
    if (i % 20 != 0) training.insert(poems[i]);
  }
  std::size_t leaked = 0;
  for (std::size_t i = 0; i < poems.size(); i += 20) {
    if (training.count(poems[i]) && ++leaked <= 5) {
      ADD_FAILURE() << "held-out poem " << i << " is also in training: " << poems[i];
    }
  }
  EXPECT_EQ(leaked, 0u);
}

TEST(PrepareCorpus, KeepsOnlyTheFirstCopyOfAPoem) {
  const fs::path scratch =
      fs::temp_directory_path() / ("tang_corpus_test_dup_" + std::to_string(::getpid()));
  const fs::path dir = scratch / "package" / "dist" / "quantangshi";
  fs::create_directories(dir);
  // the same 五绝 twice (as two poets), with another poem between the copies
  std::ofstream(dir / "poet.tang.0.json")
      << R"([{"paragraphs": ["白日依山盡，黃河入海流。", "欲窮千里目，更上一層樓。"]},)"
      << R"( {"paragraphs": ["春眠不覺曉，處處聞啼鳥。", "夜來風雨聲，花落知多少。"]},)"
      << R"( {"paragraphs": ["白日依山盡，黃河入海流。", "欲窮千里目，更上一層樓。"]}])";
  std::string message;
  ASSERT_EQ(run_prepare_corpus(scratch / "package", scratch / "out.txt", message), 0) << message;
  EXPECT_EQ(read_file(scratch / "out.txt"),
            "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。\n"
            "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。\n");
  fs::remove_all(scratch);
}

TEST(PrepareCorpus, MissingPackageIsAOneLineError) {
  const fs::path scratch =
      fs::temp_directory_path() / ("tang_corpus_test_" + std::to_string(::getpid()));
  const fs::path out = scratch / "out.txt";
  std::string message;
  EXPECT_NE(run_prepare_corpus(scratch / "no_such_package", out, message), 0);
  EXPECT_EQ(message.rfind("prepare_corpus: error:", 0), 0u) << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  EXPECT_FALSE(fs::exists(out));
}

TEST(PrepareCorpus, BadJsonIsAOneLineError) {
  const fs::path scratch =
      fs::temp_directory_path() / ("tang_corpus_test_json_" + std::to_string(::getpid()));
  const fs::path dir = scratch / "package" / "dist" / "quantangshi";
  fs::create_directories(dir);
  std::ofstream(dir / "poet.tang.0.json") << "[{\"paragraphs\": [\"秦川雄帝宅，\"";  // cut off
  std::string message;
  EXPECT_NE(run_prepare_corpus(scratch / "package", scratch / "out.txt", message), 0);
  EXPECT_EQ(message.rfind("prepare_corpus: error: bad JSON in ", 0), 0u) << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  fs::remove_all(scratch);
}

}  // namespace

#else  // TANG_CORPUS_REBUILD_TEST
// ===========================================================================
// corpus_rebuild_test: rebuild from the cached package, compare byte for byte
// ===========================================================================
namespace {

TEST(CorpusRebuild, PrepareCorpusReproducesShippedFile) {
  const fs::path package = kDataDir / ".npm-cache" / "package";
  if (!fs::is_directory(package / "dist" / "quantangshi")) {
    GTEST_SKIP() << "chinese-poetry package not cached in " << package
                 << "; run scripts/fetch_corpus.sh to enable this test";
  }
  const fs::path out =
      fs::temp_directory_path() / ("tang_poems_rebuild_" + std::to_string(::getpid()) + ".txt");
  const std::string command = std::string("\"") + TANG_PREPARE_CORPUS + "\" --package-dir \"" +
                              package.string() + "\" --out \"" + out.string() + "\" > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << "failed: " << command;
  const std::string rebuilt = read_file(out);
  fs::remove(out);
  const std::string shipped = read_file(kCorpus);
  ASSERT_FALSE(shipped.empty()) << "missing " << kCorpus;
  EXPECT_EQ(rebuilt.size(), shipped.size());
  EXPECT_TRUE(rebuilt == shipped) << "prepare_corpus output differs from " << kCorpus;
}

}  // namespace
#endif
