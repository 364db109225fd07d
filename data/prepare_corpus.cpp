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
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <opencc/Exception.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace fs = std::filesystem;

namespace {

// An error we report as one line and exit with status 1.
struct CorpusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
      throw CorpusError("unknown or incomplete argument: " + arg);
    }
  }
  if (opt.package_dir.empty() || opt.out.empty()) {
    throw CorpusError("both --package-dir and --out are required (see --help)");
  }
  return opt;
}

// ---------------------------------------------------------------------------
// UTF-8: decode a string into code points. Returns nothing if it is not valid UTF-8.
std::optional<std::u32string> decode_utf8(const std::string& text) {
  std::u32string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    int extra = 0;
    char32_t cp = 0;
    if (lead < 0x80) {
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1;
      cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2;
      cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3;
      cp = lead & 0x07;
    } else {
      return std::nullopt;
    }
    if (i + extra >= text.size()) return std::nullopt;  // sequence cut off at the end
    for (int k = 1; k <= extra; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      if ((byte & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (byte & 0x3F);
    }
    // Reject overlong forms, surrogates and values past U+10FFFF.
    static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    out.push_back(cp);
    i += 1 + extra;
  }
  return out;
}

// ---------------------------------------------------------------------------
// The filter rules (see the comment at the top).
constexpr char32_t kComma = U'，';   // U+FF0C
constexpr char32_t kPeriod = U'。';  // U+3002

bool is_cjk(char32_t c) {
  return c >= 0x4E00 && c <= 0x9FFF;
}
bool is_line_end(char32_t c) {
  return c == kComma || c == kPeriod;
}

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

// The N of "poet.tang.<N>.json", or nothing for any other file name.
std::optional<long> file_number(const std::string& name) {
  const std::string prefix = "poet.tang.";
  const std::string suffix = ".json";
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
      !name.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
    return std::nullopt;
  return std::stol(digits);
}

std::vector<fs::path> list_poem_files(const fs::path& package_dir) {
  if (!fs::is_directory(package_dir)) {
    throw CorpusError("package folder not found: " + package_dir.string() +
                      " (run scripts/fetch_corpus.sh)");
  }
  const fs::path dir = package_dir / "dist" / "quantangshi";
  if (!fs::is_directory(dir)) {
    throw CorpusError("folder not found: " + dir.string() + " (is this chinese-poetry@2.0.1?)");
  }
  std::vector<std::pair<long, fs::path>> numbered;  // (N, path)
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (const auto n = file_number(entry.path().filename().string())) {
      numbered.emplace_back(*n, entry.path());
    }
  }
  if (numbered.empty()) throw CorpusError("no poet.tang.*.json files in " + dir.string());
  std::sort(numbered.begin(), numbered.end());  // numeric order: 0, 1000, 2000, ..., 10000
  std::vector<fs::path> files;
  for (const auto& [number, path] : numbered) files.push_back(path);
  return files;
}

// Reads one JSON file and returns each poem's paragraphs joined into one string.
std::vector<std::string> read_poems(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CorpusError("cannot open " + file.string());
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw CorpusError("bad JSON in " + file.string() + ": " + e.what());
  }
  if (!doc.is_array()) throw CorpusError("bad JSON in " + file.string() + ": expected an array");
  std::vector<std::string> poems;
  for (const auto& entry : doc) {
    const auto it = entry.find("paragraphs");
    if (!entry.is_object() || it == entry.end() || !it->is_array()) {
      throw CorpusError("bad JSON in " + file.string() + ": a poem without a \"paragraphs\" array");
    }
    std::string joined;
    for (const auto& paragraph : *it) {
      if (!paragraph.is_string()) {
        throw CorpusError("bad JSON in " + file.string() + ": a paragraph that is not a string");
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

  std::ofstream out(opt.out, std::ios::binary | std::ios::trunc);
  if (!out) throw CorpusError("cannot write " + opt.out.string());
  out << output;
  out.close();
  if (!out) throw CorpusError("error while writing " + opt.out.string());
  print_summary(summary, opt.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_args(argc, argv));
  } catch (const CorpusError& e) {
    std::cerr << "prepare_corpus: error: " << e.what() << "\n";
  } catch (const opencc::Exception& e) {  // e.g. t2s.json not installed
    std::cerr << "prepare_corpus: error: OpenCC: " << e.what() << "\n";
  } catch (const std::exception& e) {  // filesystem errors and the like
    std::cerr << "prepare_corpus: error: " << e.what() << "\n";
  }
  return 1;
}
