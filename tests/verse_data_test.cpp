// Tests of lesson 07's data, data/tones.tsv and data/rhymes.tsv (see data/README.md,
// "Tones and rhyme groups (for lesson 07)").
//
// This one source file builds two test executables (tests/CMakeLists.txt):
//   verse_data_test          (label "corpus"): the shipped files: format, coverage of the
//                            corpus, characters whose class every handbook agrees on, rhyme
//                            groups of Tang practice, the numbers of data/README.md; and
//                            prepare_tones / prepare_rhymes on small hand-made inputs, with
//                            their one-line errors;
//   verse_data_rebuild_test  (label "corpus_rebuild", compiled with
//                            TANG_VERSE_DATA_REBUILD_TEST): reruns both programs on the
//                            cached npm package and Debian's Unihan and checks that the results
//                            are byte-identical to the shipped files. Skipped when either input
//                            is missing; CI can leave it out with -LE corpus_rebuild.

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
const fs::path kTones = kDataDir / "tones.tsv";
const fs::path kRhymes = kDataDir / "rhymes.tsv";
const fs::path kReadme = kDataDir / "README.md";
const fs::path kUnihanBz2 = "/usr/share/unicode/Unihan_Readings.txt.bz2";  // unicode-data

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh scratch folder for one test.
fs::path scratch_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("tang_verse_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs a command line; returns its exit status, with its stdout and stderr in `out` / `err`.
int run_command(const std::string& command, const fs::path& scratch, std::string& out,
                std::string& err) {
  const fs::path out_file = scratch / "stdout.txt";
  const fs::path err_file = scratch / "stderr.txt";
  const std::string line =
      command + " > \"" + out_file.string() + "\" 2> \"" + err_file.string() + "\"";
  const int status = std::system(line.c_str());
  out = read_file(out_file);
  err = read_file(err_file);
  return status;
}

std::string quoted(const fs::path& path) {
  std::string text = "\"";  // built by appending: GCC 12 warns (-Wrestrict) on "\"" + ...
  text += path.string();
  text += '"';
  return text;
}

}  // namespace

#ifndef TANG_VERSE_DATA_REBUILD_TEST
// ===========================================================================
// verse_data_test: the shipped files and the programs on hand-made input
// ===========================================================================
namespace {

using tang_test::sha256_hex;  // tests/sha256.hpp

// --- UTF-8: split a text into its characters (each a UTF-8 string) -----------
// Returns nothing when the text is not valid UTF-8 (lead and continuation bytes only;
// the corpus tests check the rest).
std::optional<std::vector<std::string>> characters_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80           ? 1
                               : (lead >> 5) == 0x6  ? 2
                               : (lead >> 4) == 0xE  ? 3
                               : (lead >> 3) == 0x1E ? 4
                                                     : 0;
    if (length == 0 || i + length > text.size()) return std::nullopt;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return std::nullopt;
    }
    out.push_back(text.substr(i, length));
    i += length;
  }
  return out;
}

// Is this one character of U+4E00..U+9FFF (three bytes, E4 B8 80 .. E9 BF BF)?
bool is_cjk(const std::string& c) {
  if (c.size() != 3) return false;
  const auto b0 = static_cast<unsigned char>(c[0]);
  const auto b1 = static_cast<unsigned char>(c[1]);
  return (b0 == 0xE4 && b1 >= 0xB8) || (b0 >= 0xE5 && b0 <= 0xE9);
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, separator)) fields.push_back(field);
  if (!line.empty() && line.back() == separator) fields.push_back("");
  return fields;
}

bool is_number(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// --- the two files, read once --------------------------------------------------
struct Tone {
  std::string tone_class;  // 平, 仄 or 两
  std::string source;      // strains or kCantonese
  long ping = 0, ze = 0;
};

struct VerseData {
  std::vector<std::string> tone_problems;    // what is wrong with tones.tsv, if anything
  std::vector<std::string> rhyme_problems;   // ... with rhymes.tsv
  std::map<std::string, Tone> tones;         // character -> its line
  std::map<std::string, long> group_of;      // rhymes.tsv: character -> group
  std::map<long, std::size_t> group_size;    // group -> characters
  std::map<std::string, long> corpus_count;  // CJK character -> count in the corpus
  std::size_t corpus_tokens = 0;
};

VerseData load() {
  VerseData d;
  {
    std::istringstream in(read_file(kTones));
    std::string line, previous;
    if (!std::getline(in, line) || line != "character\tclass\tsource\tping_count\tze_count") {
      d.tone_problems.push_back("missing or bad header: " + line);
    }
    for (std::size_t n = 2; std::getline(in, line); ++n) {
      const auto f = split(line, '\t');
      const std::string where = "tones.tsv:" + std::to_string(n) + ": ";
      if (f.size() != 5 || !is_cjk(f[0]) || !is_number(f[3]) || !is_number(f[4])) {
        d.tone_problems.push_back(where + "bad line: " + line);
        continue;
      }
      if (f[1] != "平" && f[1] != "仄" && f[1] != "两")
        d.tone_problems.push_back(where + "class " + f[1]);
      if (f[2] != "strains" && f[2] != "kCantonese")
        d.tone_problems.push_back(where + "source " + f[2]);
      if (!previous.empty() && !(previous < f[0])) {  // UTF-8 byte order = code point order
        d.tone_problems.push_back(where + "not sorted by code point");
      }
      previous = f[0];
      d.tones[f[0]] = {f[1], f[2], std::stol(f[3]), std::stol(f[4])};
    }
  }
  {
    std::istringstream in(read_file(kRhymes));
    std::string line;
    if (!std::getline(in, line) || line != "group\tcharacter\tcount") {
      d.rhyme_problems.push_back("missing or bad header: " + line);
    }
    long last_group = 0;
    for (std::size_t n = 2; std::getline(in, line); ++n) {
      const auto f = split(line, '\t');
      const std::string where = "rhymes.tsv:" + std::to_string(n) + ": ";
      if (f.size() != 3 || !is_number(f[0]) || !is_cjk(f[1]) || !is_number(f[2])) {
        d.rhyme_problems.push_back(where + "bad line: " + line);
        continue;
      }
      const long group = std::stol(f[0]);
      if (group != last_group && group != last_group + 1) {
        d.rhyme_problems.push_back(where + "groups not numbered 1, 2, 3, ... in order");
      }
      last_group = group;
      if (!d.group_of.emplace(f[1], group).second) {
        d.rhyme_problems.push_back(where + f[1] + " is in two lines");
      }
      ++d.group_size[group];
    }
  }
  if (const auto chars = characters_of(read_file(kCorpus))) {
    for (const auto& c : *chars) {
      if (!is_cjk(c)) continue;
      ++d.corpus_count[c];
      ++d.corpus_tokens;
    }
  }
  return d;
}

class VerseDataFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { data_ = new VerseData(load()); }
  static void TearDownTestSuite() { delete data_; }
  static const VerseData& data() { return *data_; }
  static std::string tone_of(const std::string& c) {
    const auto it = data().tones.find(c);
    return it == data().tones.end() ? "(missing)" : it->second.tone_class;
  }
  static long group_of(const std::string& c) {
    const auto it = data().group_of.find(c);
    return it == data().group_of.end() ? -1 : it->second;
  }

 private:
  static inline VerseData* data_ = nullptr;
};

TEST_F(VerseDataFiles, TonesTableIsWellFormed) {
  ASSERT_FALSE(data().tones.empty())
      << "missing or empty " << kTones << " (scripts/rebuild_verse_data.sh builds it)";
  for (const auto& problem : data().tone_problems) ADD_FAILURE() << problem;
  EXPECT_TRUE(data().tone_problems.empty());
}

// The rule of data/README.md: 90% of the labelled occurrences decide 平 or 仄.
TEST_F(VerseDataFiles, StrainsClassesFollowTheNinetyPercentRule) {
  std::size_t wrong = 0;
  for (const auto& [c, t] : data().tones) {
    if (t.source != "strains") continue;
    const long total = t.ping + t.ze;
    const std::string expected = total == 0                 ? "(no label)"
                                 : 10 * t.ping >= 9 * total ? "平"
                                 : 10 * t.ze >= 9 * total   ? "仄"
                                                            : "两";
    if (t.tone_class != expected && ++wrong <= 5) {
      ADD_FAILURE() << c << ": " << t.tone_class << " with " << t.ping << " 平 / " << t.ze
                    << " 仄, expected " << expected;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_F(VerseDataFiles, TonesCoverTheCorpus) {
  ASSERT_GT(data().corpus_tokens, 0u) << "missing or broken " << kCorpus;
  std::size_t covered = 0;
  for (const auto& [c, count] : data().corpus_count) {
    if (data().tones.count(c)) covered += count;
  }
  EXPECT_GE(static_cast<double>(covered), 0.999 * static_cast<double>(data().corpus_tokens))
      << covered << " of " << data().corpus_tokens << " corpus tokens have a class";
  std::size_t strangers = 0;
  for (const auto& [c, t] : data().tones) {
    if (!data().corpus_count.count(c) && ++strangers <= 5) {
      ADD_FAILURE() << c << " is in tones.tsv but not in the corpus";
    }
  }
  EXPECT_EQ(strangers, 0u);
}

// Entering-tone characters (入声): oblique in Tang verse, level in Mandarin for 白 国 石 十.
TEST_F(VerseDataFiles, EnteringToneCharactersAreOblique) {
  for (const char* c : {"白", "国", "石", "十", "一", "得", "出", "别", "独", "竹", "发"}) {
    EXPECT_EQ(tone_of(c), "仄") << c;
  }
}

TEST_F(VerseDataFiles, LevelCharactersAreLevel) {
  for (const char* c : {"天", "风", "花", "人", "山", "东", "春", "秋", "年", "来", "明"}) {
    EXPECT_EQ(tone_of(c), "平") << c;
  }
}

// Characters with a level and an oblique reading in common use (看 kān/kàn, 重, 长, 过, 思).
TEST_F(VerseDataFiles, TwoToneCharactersAreBoth) {
  for (const char* c : {"看", "重", "长", "过", "思"}) EXPECT_EQ(tone_of(c), "两") << c;
}

TEST_F(VerseDataFiles, RhymeGroupsAreWellFormed) {
  ASSERT_FALSE(data().group_of.empty())
      << "missing or empty " << kRhymes << " (scripts/rebuild_verse_data.sh builds it)";
  for (const auto& problem : data().rhyme_problems) ADD_FAILURE() << problem;
  EXPECT_TRUE(data().rhyme_problems.empty());
  EXPECT_GE(data().group_size.size(), 15u);
  EXPECT_LE(data().group_size.size(), 40u);
  std::size_t previous = SIZE_MAX;
  for (const auto& [group, size] : data().group_size) {
    EXPECT_GE(size, 2u) << "group " << group;
    EXPECT_LE(size, previous) << "group " << group << " is larger than the group before it";
    previous = size;
  }
  for (const auto& [c, group] : data().group_of) {
    EXPECT_EQ(tone_of(c), "平") << c << " (group " << group << ") is not 平 in tones.tsv";
  }
}

// Rhymes of Tang practice (平水韵 东, 删/山, 先, 尤, 真) share a group; different ones do not.
TEST_F(VerseDataFiles, KnownRhymesShareAGroup) {
  const std::vector<std::vector<const char*>> together = {{"东", "中", "风", "同", "红"},
                                                          {"山", "间", "还", "闲", "关"},
                                                          {"天", "年", "前", "烟"},
                                                          {"秋", "流", "愁", "楼"},
                                                          {"人", "春", "身", "尘"},
                                                          {"时", "知", "悲", "诗"},
                                                          {"归", "衣", "飞", "微"},
                                                          {"书", "居", "鱼", "余"},
                                                          {"花", "家", "斜", "沙"}};
  for (const auto& set : together) {
    ASSERT_NE(group_of(set.front()), -1) << set.front() << " is in no group";
    for (const char* c : set) {
      EXPECT_EQ(group_of(c), group_of(set.front())) << c << " and " << set.front();
    }
  }
  EXPECT_NE(group_of("东"), group_of("山"));
  EXPECT_NE(group_of("人"), group_of("年"));
  EXPECT_NE(group_of("秋"), group_of("天"));
  // rhymes regular verse keeps apart, which a merge by connected links had joined
  // (支 with 微; 鱼 and 虞 with 麻): time rhymed with clothes, books with flowers
  EXPECT_NE(group_of("时"), group_of("衣"));
  EXPECT_NE(group_of("悲"), group_of("归"));
  EXPECT_NE(group_of("书"), group_of("花"));
  EXPECT_NE(group_of("无"), group_of("家"));
}

// The numbers data/README.md states in its "Checked numbers" block of the section
// "Tones and rhyme groups": lines "<key> <value>".
std::map<std::string, std::string> readme_numbers() {
  std::map<std::string, std::string> numbers;
  for (const char* key : {"tones_characters", "tones_ping", "tones_ze", "tones_both",
                          "tones_from_strains", "tones_from_kcantonese", "tones_sha256",
                          "rhyme_groups", "rhyme_characters", "rhymes_sha256"}) {
    numbers[key];  // make sure every key exists (empty if absent)
  }
  std::istringstream in(read_file(kReadme));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key, value, rest;
    if (words >> key >> value && !(words >> rest) && numbers.count(key)) numbers[key] = value;
  }
  return numbers;
}

TEST_F(VerseDataFiles, NumbersMatchReadme) {
  const auto numbers = readme_numbers();
  std::map<std::string, std::size_t> by_class, by_source;
  for (const auto& [c, t] : data().tones) {
    ++by_class[t.tone_class];
    ++by_source[t.source];
  }
  EXPECT_EQ(std::to_string(data().tones.size()), numbers.at("tones_characters"));
  EXPECT_EQ(std::to_string(by_class["平"]), numbers.at("tones_ping"));
  EXPECT_EQ(std::to_string(by_class["仄"]), numbers.at("tones_ze"));
  EXPECT_EQ(std::to_string(by_class["两"]), numbers.at("tones_both"));
  EXPECT_EQ(std::to_string(by_source["strains"]), numbers.at("tones_from_strains"));
  EXPECT_EQ(std::to_string(by_source["kCantonese"]), numbers.at("tones_from_kcantonese"));
  EXPECT_EQ(std::to_string(data().group_size.size()), numbers.at("rhyme_groups"));
  EXPECT_EQ(std::to_string(data().group_of.size()), numbers.at("rhyme_characters"));
}

TEST_F(VerseDataFiles, Sha256MatchesReadme) {
  const auto numbers = readme_numbers();
  EXPECT_EQ(sha256_hex(read_file(kTones)), numbers.at("tones_sha256"))
      << "data/tones.tsv changed; if on purpose, update data/README.md";
  EXPECT_EQ(sha256_hex(read_file(kRhymes)), numbers.at("rhymes_sha256"))
      << "data/rhymes.tsv changed; if on purpose, update data/README.md";
}

// --- the programs on hand-made input ---------------------------------------------

// A package of two poems: the first lines up with its strain, the second's strain has
// lost its last 。 (so it is skipped), and a third strain has no poem.
void write_small_package(const fs::path& package) {
  fs::create_directories(package / "dist" / "quantangshi");
  fs::create_directories(package / "dist" / "strains" / "json");
  std::ofstream(package / "dist" / "quantangshi" / "poet.tang.0.json")
      << R"([{"author": "王之涣", "paragraphs": ["白日依山盡，黃河入海流。"], "id": "a"},)"
      << R"( {"author": "李白", "paragraphs": ["床前看月光，疑是地上霜。"], "id": "b"}])";
  std::ofstream(package / "dist" / "strains" / "json" / "poet.tang.0.json")
      << R"([{"strains": ["仄仄平平仄，平平仄仄平。"], "id": "a"},)"
      << R"( {"strains": ["平平○仄平，平仄仄仄平"], "id": "b"},)"
      << R"( {"strains": ["平平平平平。"], "id": "no-such-poem"}])";
}

// Readings for the characters the strains leave out (床's second reading is made up, to
// get two readings that disagree); 光 has none.
void write_small_unihan(const fs::path& file) {
  std::ofstream(file) << "# Unihan_Readings.txt, a few lines\n"
                      << "U+524D\tkCantonese\tcin4\n"
                      << "U+524D\tkMandarin\tqián\n"
                      << "U+5E8A\tkCantonese\tcong4 cong5\n"
                      << "U+5E8A\tkDefinition\tbed, couch\n"
                      << "U+7AF9\tkCantonese\tzuk1\n"
                      << "U+7AF9\tkMandarin\tzhú\n";
}

TEST(PrepareTones, SmallPackage) {
  const fs::path dir = scratch_dir("tones_small");
  write_small_package(dir / "package");
  write_small_unihan(dir / "unihan.txt");
  std::ofstream(dir / "corpus.txt") << "白日依山尽，黄河入海流。\n床前光竹。\n";
  std::string out, err;
  const int status = run_command(
      std::string(quoted(TANG_PREPARE_TONES)) + " --corpus " + quoted(dir / "corpus.txt") +
          " --package-dir " + quoted(dir / "package") + " --unihan " + quoted(dir / "unihan.txt") +
          " --out " + quoted(dir / "tones.tsv"),
      dir, out, err);
  ASSERT_EQ(status, 0) << err;
  EXPECT_EQ(read_file(dir / "tones.tsv"),
            "character\tclass\tsource\tping_count\tze_count\n"
            "依\t平\tstrains\t1\t0\n"
            "入\t仄\tstrains\t0\t1\n"
            "前\t平\tkCantonese\t1\t0\n"  // cin4: tone 4
            "尽\t仄\tstrains\t0\t1\n"
            "山\t平\tstrains\t1\t0\n"
            "床\t两\tkCantonese\t1\t1\n"  // cong4 and cong5 disagree
            "日\t仄\tstrains\t0\t1\n"
            "河\t平\tstrains\t1\t0\n"
            "流\t平\tstrains\t1\t0\n"
            "海\t仄\tstrains\t0\t1\n"
            "白\t仄\tstrains\t0\t1\n"
            "竹\t仄\tkCantonese\t0\t1\n"  // zuk1: tone 1, but -k is an entering tone
            "黄\t平\tstrains\t1\t0\n");
  EXPECT_NE(out.find("poems matched:                1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("poems skipped:                1 "), std::string::npos) << out;
  EXPECT_NE(out.find("(1 without a poem of the same id)"), std::string::npos) << out;
  EXPECT_NE(out.find("without a source:             1 characters (1 tokens) 光"), std::string::npos)
      << out;
  fs::remove_all(dir);
}

TEST(PrepareTones, MissingPackageIsAOneLineError) {
  const fs::path dir = scratch_dir("tones_missing");
  write_small_unihan(dir / "unihan.txt");
  std::ofstream(dir / "corpus.txt") << "白日依山尽，黄河入海流。\n";
  std::string out, err;
  EXPECT_NE(run_command(std::string(quoted(TANG_PREPARE_TONES)) + " --corpus " +
                            quoted(dir / "corpus.txt") + " --package-dir " +
                            quoted(dir / "no_such_package") + " --unihan " +
                            quoted(dir / "unihan.txt") + " --out " + quoted(dir / "tones.tsv"),
                        dir, out, err),
            0);
  EXPECT_EQ(err.rfind("prepare_tones: error: package folder not found: ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(fs::exists(dir / "tones.tsv"));
  fs::remove_all(dir);
}

TEST(PrepareTones, BadUnihanReadingIsAOneLineError) {
  const fs::path dir = scratch_dir("tones_unihan");
  write_small_package(dir / "package");
  std::ofstream(dir / "unihan.txt") << "U+524D\tkCantonese\tcin\n";  // no tone
  std::ofstream(dir / "corpus.txt") << "床前。\n";
  std::string out, err;
  EXPECT_NE(run_command(std::string(quoted(TANG_PREPARE_TONES)) + " --corpus " +
                            quoted(dir / "corpus.txt") + " --package-dir " +
                            quoted(dir / "package") + " --unihan " + quoted(dir / "unihan.txt") +
                            " --out " + quoted(dir / "tones.tsv"),
                        dir, out, err),
            0);
  EXPECT_EQ(err, "prepare_tones: error: " + (dir / "unihan.txt").string() +
                     ":1: not a Jyutping reading: \"cin\"\n");
  fs::remove_all(dir);
}

void write_small_tones(const fs::path& file) {
  std::ofstream(file) << "character\tclass\tsource\tping_count\tze_count\n"
                      << "东\t平\tstrains\t9\t0\n"
                      << "山\t平\tstrains\t9\t0\n"
                      << "白\t仄\tstrains\t0\t9\n"
                      << "间\t平\tstrains\t9\t0\n"
                      << "风\t平\tstrains\t9\t0\n";
}

// A 五绝 whose lines 2 and 4 end in `a` and `b` (the other characters are 一).
std::string quatrain(const std::string& a, const std::string& b) {
  return "一一一一一，一一一一" + a + "。一一一一一，一一一一" + b + "。\n";
}

TEST(PrepareRhymes, SmallCorpus) {
  const fs::path dir = scratch_dir("rhymes_small");
  write_small_tones(dir / "tones.tsv");
  std::ofstream corpus(dir / "corpus.txt");
  for (int i = 0; i < 3; ++i) corpus << quatrain("东", "风");  // 东-风 three times
  for (int i = 0; i < 2; ++i) corpus << quatrain("山", "间");  // 山-间 twice
  corpus << quatrain("东", "白");                              // 白 is 仄: no link
  for (int i = 0; i < 5; ++i) {  // six lines: not a 绝句 or 律诗, not counted
    corpus << "一一一一一，一一一一山。一一一一一，一一一一间。一一一一一，一一一一东。\n";
  }
  corpus.close();
  const std::string base = std::string(quoted(TANG_PREPARE_RHYMES)) + " --corpus " +
                           quoted(dir / "corpus.txt") + " --tones " + quoted(dir / "tones.tsv") +
                           " --out " + quoted(dir / "rhymes.tsv");
  std::string out, err;
  ASSERT_EQ(run_command(base, dir, out, err), 0) << err;
  EXPECT_EQ(read_file(dir / "rhymes.tsv"), "group\tcharacter\tcount\n1\t东\t4\n1\t风\t3\n");
  EXPECT_NE(out.find("groups:               1\n"), std::string::npos) << out;

  ASSERT_EQ(run_command(base + " --min-links 2", dir, out, err), 0) << err;
  EXPECT_EQ(read_file(dir / "rhymes.tsv"),
            "group\tcharacter\tcount\n1\t东\t4\n1\t风\t3\n2\t山\t2\n2\t间\t2\n");
  fs::remove_all(dir);
}

TEST(PrepareRhymes, BadInputIsAOneLineError) {
  const fs::path dir = scratch_dir("rhymes_bad");
  std::ofstream(dir / "corpus.txt") << quatrain("东", "风");
  std::ofstream(dir / "tones.tsv") << "character\tclass\tsource\tping_count\tze_count\n"
                                   << "东\t上\tstrains\t1\t0\n";
  const std::string base = std::string(quoted(TANG_PREPARE_RHYMES)) + " --corpus " +
                           quoted(dir / "corpus.txt") + " --tones " + quoted(dir / "tones.tsv") +
                           " --out " + quoted(dir / "rhymes.tsv");
  std::string out, err;
  EXPECT_NE(run_command(base, dir, out, err), 0);
  EXPECT_EQ(err.rfind("prepare_rhymes: error: ", 0), 0u) << err;
  EXPECT_NE(err.find("tones.tsv:2: expected character"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(fs::exists(dir / "rhymes.tsv"));

  write_small_tones(dir / "tones.tsv");
  EXPECT_NE(run_command(base + " --min-share 2", dir, out, err), 0);
  EXPECT_EQ(err, "prepare_rhymes: error: --min-share needs a number from 0 to 1, not \"2\"\n");
  EXPECT_NE(run_command(base + " --min-links 0", dir, out, err), 0);
  EXPECT_EQ(err,
            "prepare_rhymes: error: --min-links needs a whole number of at least 1, not \"0\"\n");
  fs::remove_all(dir);
}

}  // namespace

#else  // TANG_VERSE_DATA_REBUILD_TEST
// ===========================================================================
// verse_data_rebuild_test: rebuild from the cached package and Unihan, compare
// ===========================================================================
namespace {

TEST(VerseDataRebuild, ProgramsReproduceShippedFiles) {
  const fs::path package = kDataDir / ".npm-cache" / "package";
  if (!fs::is_directory(package / "dist" / "strains" / "json")) {
    GTEST_SKIP() << "chinese-poetry package not cached in " << package
                 << "; run scripts/fetch_corpus.sh to enable this test";
  }
  if (!fs::exists(kUnihanBz2)) {
    GTEST_SKIP() << kUnihanBz2 << " not found; apt-get install unicode-data to enable this test";
  }
  const fs::path dir = scratch_dir("rebuild");
  std::string out, err;
  ASSERT_EQ(
      run_command("bzcat " + quoted(kUnihanBz2) + " > " + quoted(dir / "unihan.txt") + " && " +
                      quoted(TANG_PREPARE_TONES) + " --corpus " + quoted(kCorpus) +
                      " --package-dir " + quoted(package) + " --unihan " +
                      quoted(dir / "unihan.txt") + " --out " + quoted(dir / "tones.tsv") + " && " +
                      quoted(TANG_PREPARE_RHYMES) + " --corpus " + quoted(kCorpus) + " --tones " +
                      quoted(dir / "tones.tsv") + " --out " + quoted(dir / "rhymes.tsv"),
                  dir, out, err),
      0)
      << err;
  for (const auto& [rebuilt, shipped] :
       {std::pair{dir / "tones.tsv", kTones}, std::pair{dir / "rhymes.tsv", kRhymes}}) {
    const std::string a = read_file(rebuilt);
    const std::string b = read_file(shipped);
    ASSERT_FALSE(b.empty()) << "missing " << shipped;
    EXPECT_EQ(a.size(), b.size()) << shipped;
    EXPECT_TRUE(a == b) << "the rebuilt " << rebuilt.filename() << " differs from " << shipped;
  }
  fs::remove_all(dir);
}

}  // namespace
#endif
