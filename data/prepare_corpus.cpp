// prepare_corpus: builds data/tang_poems.txt, the training text of the course.
//
// Input: the npm package chinese-poetry@2.0.1 (MIT licence), unpacked by
// scripts/fetch_corpus.sh into data/.npm-cache/package. We read every file
// dist/quantangshi/poet.tang.<N>.json (全唐诗, 57,607 poems in traditional
// characters), files in numeric order of N (0, 1000, 2000, ...), poems in file order.
// Each poem is a JSON object whose "paragraphs" is an array of strings.
//
// The rules, applied to each poem in this order:
//   1. Join the paragraphs into one string (nothing between them).
//   2. Convert traditional to simplified characters with OpenCC's "t2s.json".
//   3. Split the text into lines (句): a line ends at '，' or '。'.
//   4. Keep the poem only if
//        - the text is not empty and ends with '。' (nothing after the last line),
//        - every line has 5 or 7 characters and all lines have the same length,
//        - every character of a line is a CJK Unified Ideograph, U+4E00..U+9FFF
//          (extension A/B and compatibility ideographs do NOT count; the poem is dropped).
//      Anything else (brackets, '？', '、', '□', digits, an empty line such as
//      "，，") drops the whole poem.
//   5. Write the kept poem on one line followed by '\n' (UTF-8, no BOM).
//
// Usage: prepare_corpus --package-dir data/.npm-cache/package --out data/tang_poems.txt
// On success it prints a summary (poems read / kept, characters, distinct characters).

#include <opencc/opencc.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "poetry_source.hpp"

namespace fs = std::filesystem;

namespace {

using namespace poetry;  // poetry_source.hpp

struct Options {
  fs::path package_dir;
  fs::path out;
};

void print_usage(std::ostream& os) {
  os << "usage: prepare_corpus --package-dir <unpacked chinese-poetry package> --out <file>\n"
     << "  e.g. prepare_corpus --package-dir data/.npm-cache/package --out data/tang_poems.txt\n";
}

Options parse_args(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--package-dir" || arg == "--out") && i + 1 < argc) {
      (arg == "--out" ? opt.out : opt.package_dir) = argv[++i];
    } else if (arg == "-h" || arg == "--help") {
      print_usage(std::cout);
      std::exit(0);
    } else {
      throw DataError("unknown or incomplete argument: " + arg);
    }
  }
  if (opt.package_dir.empty() || opt.out.empty()) {
    throw DataError("both --package-dir and --out are required (see --help)");
  }
  return opt;
}

// ---------------------------------------------------------------------------
// The filter rules (see the comment at the top).
// A line ends at '，' (U+FF0C) or '。' (is_line_end), a poem at '。'.
constexpr char32_t kPeriod = U'。';  // U+3002

// Splits "AAAAA，BBBBB。" into {"AAAAA", "BBBBB"}. Returns nothing when the text
// does not end with '。' (an unfinished poem).
std::optional<std::vector<std::u32string>> split_lines(const std::u32string& poem) {
  if (poem.empty() || poem.back() != kPeriod) return std::nullopt;
  std::vector<std::u32string> lines;
  std::u32string current;
  for (char32_t c : poem) {
    if (is_line_end(c)) {
      lines.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  return lines;
}

bool is_regular_verse(const std::u32string& poem) {
  const auto lines = split_lines(poem);
  if (!lines) return false;
  const std::size_t length = lines->front().size();
  if (length != 5 && length != 7) return false;
  for (const auto& line : *lines) {
    if (line.size() != length) return false;
    if (!std::all_of(line.begin(), line.end(), is_cjk)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Input files: dist/quantangshi/poet.tang.<N>.json sorted by N.
std::vector<fs::path> list_poem_files(const fs::path& package_dir) {
  require_package_dir(package_dir);
  return list_tang_files(package_dir / "dist" / "quantangshi", "is this chinese-poetry@2.0.1?");
}

// Reads one JSON file and returns each poem's paragraphs joined into one string.
std::vector<std::string> read_poems(const fs::path& file) {
  const nlohmann::json doc = read_json_array(file);
  std::vector<std::string> poems;
  for (const auto& entry : doc) {
    const auto it = entry.find("paragraphs");
    if (!entry.is_object() || it == entry.end() || !it->is_array()) {
      throw DataError("bad JSON in " + file.string() + ": a poem without a \"paragraphs\" array");
    }
    std::string joined;
    for (const auto& paragraph : *it) {
      if (!paragraph.is_string()) {
        throw DataError("bad JSON in " + file.string() + ": a paragraph that is not a string");
      }
      joined += paragraph.get<std::string>();
    }
    poems.push_back(std::move(joined));
  }
  return poems;
}

// ---------------------------------------------------------------------------
struct Summary {
  std::size_t poems_read = 0;
  std::size_t poems_kept = 0;
  std::size_t duplicates_dropped = 0;  // regular verse whose exact text came earlier
  std::size_t characters = 0;          // code points written, newlines included
  std::set<char32_t> distinct;         // distinct code points, newline included
};

void print_summary(const Summary& s, const fs::path& out) {
  std::cout << "poems read:          " << s.poems_read << "\n"
            << "poems kept:          " << s.poems_kept << "\n"
            << "duplicates dropped:  " << s.duplicates_dropped
            << " (exact copies of an earlier poem)\n"
            << "characters:          " << s.characters << " (newlines included)\n"
            << "distinct characters: " << s.distinct.size() << " (newline included)\n"
            << "written to:          " << out.string() << "\n";
}

int run(const Options& opt) {
  const auto files = list_poem_files(opt.package_dir);
  const opencc::SimpleConverter t2s("t2s.json");

  std::string output;
  Summary summary;
  // The texts written so far: the collection has some poems twice (under two
  // poets, or twice under one), and a poem in both the training and the
  // held-out part would make the held-out loss a test of memory.
  std::unordered_set<std::string> written;
  for (const auto& file : files) {
    for (const auto& traditional : read_poems(file)) {
      ++summary.poems_read;
      const std::string simplified = t2s.Convert(traditional);
      const auto poem = decode_utf8(simplified);
      if (!poem || !is_regular_verse(*poem)) continue;
      if (!written.insert(simplified).second) {  // an exact copy: keep the first only
        ++summary.duplicates_dropped;
        continue;
      }
      ++summary.poems_kept;
      summary.characters += poem->size() + 1;
      summary.distinct.insert(poem->begin(), poem->end());
      summary.distinct.insert(U'\n');
      output += simplified;
      output += '\n';
    }
  }

  write_file_whole(opt.out, output);
  print_summary(summary, opt.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return poetry::run_reporting_errors("prepare_corpus",
                                      [&] { return run(parse_args(argc, argv)); });
}
