// prepare_tones: builds data/tones.tsv, the tone class of every character of the
// corpus in Tang verse: 平 (level), 仄 (oblique) or 两 (both). The data of lesson 07
// (regular verse, 格律); see data/README.md, "Tones and rhyme groups".
//
// Inputs:
//   --corpus      data/tang_poems.txt: its CJK characters are the characters we classify,
//                 and their counts weigh the shares we print.
//   --package-dir the npm package chinese-poetry@2.0.1 (MIT licence), unpacked by
//                 scripts/fetch_corpus.sh. We read
//                   dist/quantangshi/poet.tang.<N>.json    {"id", "paragraphs", ...}
//                   dist/strains/json/poet.tang.<N>.json   {"id", "strains"}
//                 Each strain is the poem's text with every character replaced by its
//                 tone mark: 平, 仄, or ○ / ？ / 通 (undecided: either tone, or unknown);
//                 ， and 。 stay where they are.
//   --unihan      Unihan_Readings.txt (Unicode 15.0, Debian package unicode-data, which
//                 ships it compressed: bzcat /usr/share/unicode/Unihan_Readings.txt.bz2).
//
// The rules:
//   1. Source "strains". For each strain we find the poem with the same "id", join its
//      paragraphs and convert them with OpenCC "t2s.json", exactly as prepare_corpus
//      does, so that the characters are the corpus's. Joined, the poem and its strain
//      must line up: the same number of characters, every CJK character (U+4E00..U+9FFF)
//      of the poem facing a mark (平 仄 ○ ？ 通), and every ， / 。 of the poem facing a
//      ， / 。 of the strain. Poems that do not line up are skipped (and counted). Each
//      CJK character facing 平 or 仄 adds one to its ping or ze count.
//      A character with ping + ze > 0 is 平 when ping >= 90% of ping + ze, 仄 when
//      ze >= 90%, otherwise 两.
//   2. Source "kCantonese", for the characters the strains never mark 平 or 仄: the
//      Unihan field kCantonese of the character itself (no other mapping: a character
//      without the field stays without a class, and is listed). A reading ending in
//      -p, -t or -k is an entering tone (入声), hence 仄; otherwise Cantonese tones 1
//      and 4 are 平, tones 2, 3, 5 and 6 are 仄. Readings that disagree give 两.
//      For these characters ping_count and ze_count count the readings.
//   3. Printed only: how often kCantonese, and kMandarin (tones 1 and 2 平, 3 and 4 仄,
//      the same rule for several readings), give the class of the strains, on the
//      characters both cover, weighted by their count in the corpus.
//
// Output: a header line, then one line per character, sorted by code point:
//   character<TAB>class<TAB>source<TAB>ping_count<TAB>ze_count
//
// Usage: prepare_tones --corpus data/tang_poems.txt --package-dir data/.npm-cache/package
//                      --unihan <Unihan_Readings.txt> --out data/tones.tsv

#include <opencc/opencc.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "poetry_source.hpp"

namespace fs = std::filesystem;

namespace {

using namespace poetry;  // poetry_source.hpp

struct Options {
  fs::path corpus;
  fs::path package_dir;
  fs::path unihan;
  fs::path out;
};

void print_usage(std::ostream& os) {
  os << "usage: prepare_tones --corpus <tang_poems.txt> --package-dir <unpacked chinese-poetry>\n"
     << "                     --unihan <Unihan_Readings.txt> --out <file>\n"
     << "  e.g. prepare_tones --corpus data/tang_poems.txt --package-dir "
        "data/.npm-cache/package\n"
     << "         --unihan /tmp/Unihan_Readings.txt --out data/tones.tsv\n"
     << "  (bzcat /usr/share/unicode/Unihan_Readings.txt.bz2 > /tmp/Unihan_Readings.txt)\n";
}

Options parse_args(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      print_usage(std::cout);
      std::exit(0);
    }
    fs::path* target = arg == "--corpus"        ? &opt.corpus
                       : arg == "--package-dir" ? &opt.package_dir
                       : arg == "--unihan"      ? &opt.unihan
                       : arg == "--out"         ? &opt.out
                                                : nullptr;
    if (target == nullptr || i + 1 >= argc) {
      throw DataError("unknown or incomplete argument: " + arg);
    }
    *target = argv[++i];
  }
  if (opt.corpus.empty() || opt.package_dir.empty() || opt.unihan.empty() || opt.out.empty()) {
    throw DataError("--corpus, --package-dir, --unihan and --out are all required (see --help)");
  }
  return opt;
}

// ---------------------------------------------------------------------------
// Tone classes.
enum class Tone { kPing, kZe, kBoth };

const char* tone_name(Tone t) {
  return t == Tone::kPing ? "平" : t == Tone::kZe ? "仄" : "两";
}

// The class of a set of readings: the one class they all give, or 两.
std::optional<Tone> combine(const std::vector<Tone>& readings) {
  if (readings.empty()) return std::nullopt;
  for (Tone t : readings) {
    if (t != readings.front()) return Tone::kBoth;
  }
  return readings.front();
}

// The class from the strains' counts: 90% or more of one tone decides it.
Tone majority_class(std::size_t ping, std::size_t ze) {
  const std::size_t total = ping + ze;
  if (10 * ping >= 9 * total) return Tone::kPing;
  if (10 * ze >= 9 * total) return Tone::kZe;
  return Tone::kBoth;
}

// One Jyutping syllable of kCantonese, e.g. "jat1", "fung1", "baak6"; nothing when it
// is not one (letters a-z, then a tone 1 to 6).
std::optional<Tone> cantonese_tone(const std::string& reading) {
  const bool well_formed =
      reading.size() >= 2 && reading.back() >= '1' && reading.back() <= '6' &&
      std::all_of(reading.begin(), reading.end() - 1, [](char c) { return c >= 'a' && c <= 'z'; });
  if (!well_formed) return std::nullopt;
  const char final_letter = reading[reading.size() - 2];
  if (final_letter == 'p' || final_letter == 't' || final_letter == 'k') return Tone::kZe;  // 入声
  const char tone = reading.back();
  return tone == '1' || tone == '4' ? Tone::kPing : Tone::kZe;
}

// One pinyin syllable of kMandarin, e.g. "yī", "bái" (already decoded): its tone from
// the mark on the vowel, tones 1 and 2 平, 3 and 4 仄; nothing for the neutral tone (no mark).
std::optional<Tone> mandarin_tone(const std::u32string& reading) {
  static const std::u32string kLevel = U"āēīōūǖ\u0304áéíóúǘḿń\u0301";    // tones 1 and 2
  static const std::u32string kOblique = U"ǎěǐǒǔǚň\u030Càèìòùǜǹ\u0300";  // tones 3 and 4
  for (char32_t c : reading) {
    if (kLevel.find(c) != std::u32string::npos) return Tone::kPing;
    if (kOblique.find(c) != std::u32string::npos) return Tone::kZe;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// The corpus: how often each CJK character occurs.
std::map<char32_t, std::size_t> read_corpus(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot open " + path.string() + " (the corpus, data/tang_poems.txt)");
  std::ostringstream ss;
  ss << in.rdbuf();
  const auto text = decode_utf8(ss.str());
  if (!text) throw DataError(path.string() + " is not valid UTF-8");
  std::map<char32_t, std::size_t> counts;
  for (char32_t c : *text) {
    if (is_cjk(c)) ++counts[c];
  }
  if (counts.empty()) throw DataError(path.string() + " has no CJK characters");
  return counts;
}

// ---------------------------------------------------------------------------
// The package: <dir>/poet.tang.<N>.json in numeric order of N (list_tang_files).
constexpr const char* kFolderHint = "run scripts/fetch_corpus.sh; is this chinese-poetry@2.0.1?";

// The string field `key` of an entry.
std::string string_field(const nlohmann::json& entry, const char* key, const fs::path& file) {
  if (entry.is_object()) {
    const auto it = entry.find(key);
    if (it != entry.end() && it->is_string()) return it->get<std::string>();
  }
  throw DataError("bad JSON in " + file.string() + ": an entry without a string \"" + key + "\"");
}

// The array-of-strings field `key` of an entry, joined with nothing in between.
std::string joined_field(const nlohmann::json& entry, const char* key, const fs::path& file) {
  const auto it = entry.is_object() ? entry.find(key) : entry.end();
  if (it == entry.end() || !it->is_array()) {
    throw DataError("bad JSON in " + file.string() + ": an entry without a \"" + key + "\" array");
  }
  std::string joined;
  for (const auto& part : *it) {
    if (!part.is_string()) {
      throw DataError("bad JSON in " + file.string() + ": a \"" + key +
                      "\" element that is not a string");
    }
    joined += part.get<std::string>();
  }
  return joined;
}

// ---------------------------------------------------------------------------
// Source 1: the strains.
struct StrainCounts {
  std::size_t poems = 0;    // poems in dist/quantangshi
  std::size_t strains = 0;  // entries in dist/strains/json
  std::size_t strains_without_poem = 0;
  std::size_t matched = 0;                // lined up and counted
  std::size_t skipped = 0;                // did not line up
  std::map<char32_t, std::size_t> marks;  // mark -> how often it faces a CJK character
  std::unordered_map<char32_t, std::pair<std::size_t, std::size_t>> ping_ze;
};

bool is_mark(char32_t c) {
  return c == U'平' || c == U'仄' || c == U'○' || c == U'？' || c == U'通';
}

// Does the strain line up with the poem (see rule 1 at the top)?
bool lines_up(const std::u32string& poem, const std::u32string& strain) {
  if (poem.size() != strain.size()) return false;
  for (std::size_t i = 0; i < poem.size(); ++i) {
    if (is_cjk(poem[i]) && !is_mark(strain[i])) return false;
    if (is_line_end(poem[i]) && !is_line_end(strain[i])) return false;
  }
  return true;
}

StrainCounts count_strains(const fs::path& package_dir) {
  require_package_dir(package_dir);
  StrainCounts counts;
  std::unordered_map<std::string, std::string> poems;  // id -> paragraphs joined
  for (const auto& file : list_tang_files(package_dir / "dist" / "quantangshi", kFolderHint)) {
    for (const auto& entry : read_json_array(file)) {
      ++counts.poems;
      poems[string_field(entry, "id", file)] = joined_field(entry, "paragraphs", file);
    }
  }
  const opencc::SimpleConverter t2s("t2s.json");
  for (const auto& file : list_tang_files(package_dir / "dist" / "strains" / "json", kFolderHint)) {
    for (const auto& entry : read_json_array(file)) {
      ++counts.strains;
      const auto it = poems.find(string_field(entry, "id", file));
      const std::string strain_text = joined_field(entry, "strains", file);
      if (it == poems.end()) {
        ++counts.strains_without_poem;
        continue;
      }
      const auto poem = decode_utf8(t2s.Convert(it->second));
      const auto strain = decode_utf8(strain_text);
      if (!poem || !strain || !lines_up(*poem, *strain)) {
        ++counts.skipped;
        continue;
      }
      ++counts.matched;
      for (std::size_t i = 0; i < poem->size(); ++i) {
        if (!is_cjk((*poem)[i])) continue;
        const char32_t mark = (*strain)[i];
        ++counts.marks[mark];
        if (mark == U'平') ++counts.ping_ze[(*poem)[i]].first;
        if (mark == U'仄') ++counts.ping_ze[(*poem)[i]].second;
      }
    }
  }
  return counts;
}

// ---------------------------------------------------------------------------
// Source 2 (and the Mandarin comparison): Unihan_Readings.txt, lines
// "U+5929<TAB>kCantonese<TAB>tin1" (several readings separated by spaces).
struct Readings {
  std::string cantonese;  // as in the file, e.g. "zung1 zung3"
  std::string mandarin;
  std::vector<Tone> cantonese_tones;
  std::vector<Tone> mandarin_tones;  // neutral-tone readings left out
};

std::map<char32_t, Readings> read_unihan(const fs::path& path,
                                         const std::map<char32_t, std::size_t>& wanted) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw DataError("cannot open " + path.string() +
                    " (bzcat /usr/share/unicode/Unihan_Readings.txt.bz2 from unicode-data)");
  }
  std::map<char32_t, Readings> readings;
  std::size_t cantonese_lines = 0;
  std::size_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const auto tab1 = line.find('\t');
    const auto tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string::npos || !line.starts_with("U+")) {
      throw DataError(path.string() + ":" + std::to_string(line_number) +
                      ": not a Unihan line (U+XXXX<TAB>field<TAB>value)");
    }
    const std::string field = line.substr(tab1 + 1, tab2 - tab1 - 1);
    if (field != "kCantonese" && field != "kMandarin") continue;
    const std::string hex = line.substr(2, tab1 - 2);
    if (hex.empty() || hex.size() > 6 || !std::all_of(hex.begin(), hex.end(), ::isxdigit)) {
      throw DataError(path.string() + ":" + std::to_string(line_number) + ": bad code point \"U+" +
                      hex + "\"");
    }
    const auto c = static_cast<char32_t>(std::stoul(hex, nullptr, 16));
    const std::string value = line.substr(tab2 + 1);
    if (field == "kCantonese") ++cantonese_lines;
    if (!wanted.count(c)) continue;
    Readings& r = readings[c];
    std::istringstream words(value);
    const std::string where = path.string() + ":" + std::to_string(line_number) + ": ";
    for (std::string word; words >> word;) {
      if (field == "kCantonese") {
        const auto t = cantonese_tone(word);
        if (!t) throw DataError(where + "not a Jyutping reading: \"" + word + "\"");
        r.cantonese_tones.push_back(*t);
      } else {
        const auto letters = decode_utf8(word);
        if (!letters) throw DataError(where + "invalid UTF-8");
        if (const auto t = mandarin_tone(*letters)) r.mandarin_tones.push_back(*t);
      }
    }
    (field == "kCantonese" ? r.cantonese : r.mandarin) = value;
  }
  if (cantonese_lines == 0) {
    throw DataError("no kCantonese lines in " + path.string() + " (is this Unihan_Readings.txt?)");
  }
  return readings;
}

// ---------------------------------------------------------------------------
struct Entry {
  Tone tone;
  const char* source;
  std::size_t ping;
  std::size_t ze;
};

std::string percent(std::size_t part, std::size_t whole, int digits = 2) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits)
     << (whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole)) << "%";
  return os.str();
}

// Token-weighted agreement of another source with the strains, on the characters both cover.
struct Agreement {
  std::size_t characters = 0, tokens = 0, agreeing_tokens = 0;
  std::size_t definite_tokens = 0, definite_agreeing = 0;  // both say 平 or 仄
  void add(Tone strains, Tone other, std::size_t count) {
    ++characters;
    tokens += count;
    if (strains == other) agreeing_tokens += count;
    if (strains != Tone::kBoth && other != Tone::kBoth) {
      definite_tokens += count;
      if (strains == other) definite_agreeing += count;
    }
  }
  void print(const char* name) const {
    std::cout << "  " << name << ": " << characters << " characters, " << tokens
              << " tokens; the same class for " << percent(agreeing_tokens, tokens)
              << " of the tokens (" << percent(definite_agreeing, definite_tokens)
              << " where both say 平 or 仄)\n";
  }
};

int run(const Options& opt) {
  const auto corpus = read_corpus(opt.corpus);
  const auto strains = count_strains(opt.package_dir);
  const auto unihan = read_unihan(opt.unihan, corpus);

  std::map<char32_t, Entry> table;
  std::vector<char32_t> without_source;
  Agreement cantonese_vs_strains, mandarin_vs_strains;
  std::size_t ze_tokens_mandarin_ping = 0, ze_tokens_with_mandarin = 0;
  for (const auto& [c, count] : corpus) {
    const auto s = strains.ping_ze.find(c);
    const auto u = unihan.find(c);
    const auto cantonese = u == unihan.end() ? std::nullopt : combine(u->second.cantonese_tones);
    const auto mandarin = u == unihan.end() ? std::nullopt : combine(u->second.mandarin_tones);
    if (s != strains.ping_ze.end()) {
      const auto [ping, ze] = s->second;
      const Tone tone = majority_class(ping, ze);
      table[c] = {tone, "strains", ping, ze};
      if (cantonese) cantonese_vs_strains.add(tone, *cantonese, count);
      if (mandarin) {
        mandarin_vs_strains.add(tone, *mandarin, count);
        if (tone == Tone::kZe) {
          ze_tokens_with_mandarin += count;
          if (*mandarin == Tone::kPing) ze_tokens_mandarin_ping += count;
        }
      }
    } else if (cantonese) {
      const auto& tones = u->second.cantonese_tones;
      table[c] = {*cantonese, "kCantonese",
                  static_cast<std::size_t>(std::count(tones.begin(), tones.end(), Tone::kPing)),
                  static_cast<std::size_t>(std::count(tones.begin(), tones.end(), Tone::kZe))};
    } else {
      without_source.push_back(c);
    }
  }

  std::ostringstream tsv;
  tsv << "character\tclass\tsource\tping_count\tze_count\n";
  for (const auto& [c, e] : table) {
    tsv << encode_utf8(c) << '\t' << tone_name(e.tone) << '\t' << e.source << '\t' << e.ping << '\t'
        << e.ze << '\n';
  }
  write_file_whole(opt.out, tsv.str());

  // --- what we print ---
  std::size_t corpus_tokens = 0;
  for (const auto& [c, count] : corpus) corpus_tokens += count;
  std::map<std::string, std::size_t> source_chars, source_tokens;
  std::map<Tone, std::size_t> class_chars, class_tokens;
  std::size_t covered_tokens = 0;
  for (const auto& [c, e] : table) {
    const std::size_t count = corpus.at(c);
    ++source_chars[e.source];
    source_tokens[e.source] += count;
    ++class_chars[e.tone];
    class_tokens[e.tone] += count;
    covered_tokens += count;
  }

  std::cout << "poems in dist/quantangshi:    " << strains.poems << "\n"
            << "strains in dist/strains/json: " << strains.strains << " ("
            << strains.strains_without_poem << " without a poem of the same id)\n"
            << "poems matched:                " << strains.matched << "\n"
            << "poems skipped:                " << strains.skipped
            << " (poem and strain do not line up)\n"
            << "marks facing CJK characters: ";
  for (const auto& [mark, n] : strains.marks) std::cout << " " << encode_utf8(mark) << " " << n;
  std::cout << "\n"
            << "corpus characters:            " << corpus.size() << " distinct CJK, "
            << corpus_tokens << " tokens\n"
            << "covered by the strains:       " << source_chars["strains"] << " characters, "
            << percent(source_tokens["strains"], corpus_tokens, 3) << " of the tokens\n"
            << "covered by kCantonese only:   " << source_chars["kCantonese"] << " characters, "
            << percent(source_tokens["kCantonese"], corpus_tokens, 3) << " of the tokens\n"
            << "without a source:             " << without_source.size() << " characters ";
  std::size_t missing_tokens = 0;
  for (char32_t c : without_source) missing_tokens += corpus.at(c);
  std::cout << "(" << missing_tokens << " tokens)";
  for (char32_t c : without_source) std::cout << " " << encode_utf8(c);
  std::cout << "\n"
            << "tokens covered:               " << covered_tokens << " of " << corpus_tokens
            << " = " << percent(covered_tokens, corpus_tokens, 3) << "\n"
            << "classes (characters / tokens):";
  for (Tone t : {Tone::kPing, Tone::kZe, Tone::kBoth}) {
    std::cout << " " << tone_name(t) << " " << class_chars[t] << " / "
              << percent(class_tokens[t], covered_tokens);
  }
  std::cout << "\n"
            << "agreement with the strains (characters both cover, weighted by tokens):\n";
  cantonese_vs_strains.print("kCantonese");
  mandarin_vs_strains.print("kMandarin ");
  std::cout << "  tokens the strains call 仄 that Mandarin calls 平: "
            << percent(ze_tokens_mandarin_ping, ze_tokens_with_mandarin) << "\n"
            << "entering-tone (入声) characters: strains ping/ze, kCantonese, kMandarin:\n";
  for (char32_t c : std::u32string(U"一白得出别独石竹十发国")) {
    const auto e = table.find(c);
    const auto u = unihan.find(c);
    std::cout << "  " << encode_utf8(c) << " "
              << (e == table.end() ? "-" : tone_name(e->second.tone));
    if (e != table.end()) std::cout << " " << e->second.ping << "/" << e->second.ze;
    std::cout << "  " << (u == unihan.end() ? "-" : u->second.cantonese) << "  "
              << (u == unihan.end() ? "-" : u->second.mandarin) << "\n";
  }
  std::cout << "written to:                   " << opt.out.string() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return poetry::run_reporting_errors("prepare_tones", [&] { return run(parse_args(argc, argv)); });
}
