// prepare_rhymes: builds data/rhymes.tsv, groups of characters that rhyme with each
// other in Tang regular verse, found in the corpus itself. The data of lesson 07
// (regular verse, 格律); see data/README.md, "Tones and rhyme groups".
//
// Inputs: data/tang_poems.txt (one poem a line) and data/tones.tsv (prepare_tones).
//
// The rules:
//   1. Take every poem of 4 or 8 lines (绝句 and 律诗; a line ends at ， or 。).
//   2. Its rhyme characters are the last characters of the even lines (2, 4, ...) that are
//      平 in tones.tsv (仄 and 两 characters are left out). A character's count is how
//      often it is such a rhyme character.
//   3. Link every pair of different rhyme characters of the same poem; a link's weight is
//      the number of poems that have both. A character's links are the sum of its weights.
//   4. Keep a link when its weight is at least --min-links (default 3) AND at least
//      --min-share (default 0.05, that is 5%) of the links of the character with fewer
//      links: one-off pairs and the pull of a common character on a rare one drop out.
//   5. The groups are communities of the kept links, found by greedy modularity (Clauset,
//      Newman and Moore): each character starts as a group of its own; while some join of
//      two linked groups A and B raises the modularity Q, the one that raises it most is
//      made. Joining them changes Q by  w(A,B)/m - vol(A) vol(B) / (2 m^2)  (w(A,B): the
//      weight of the kept links between them; vol: the summed weights of a group's kept
//      links; m: the weight of all kept links). So two rhymes that a few poets mixed
//      (支 and 微: about 6% of 支's links go to 微) stay apart, while a link that joins
//      one rhyme's characters to each other joins them. Connected components of the kept
//      links are the upper bound: a group never spans two. A character without a kept link
//      belongs to no group. Groups are numbered from 1 by size, the largest first.
//
// Output: a header line, then `group<TAB>character<TAB>count`, groups in order, each
// group's characters by count (then by code point).
//
// Usage: prepare_rhymes --corpus data/tang_poems.txt --tones data/tones.tsv
//                       --out data/rhymes.tsv [--min-links 3] [--min-share 0.05]

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "poetry_source.hpp"

namespace fs = std::filesystem;

namespace {

using namespace poetry;  // poetry_source.hpp

struct Options {
  fs::path corpus;
  fs::path tones;
  fs::path out;
  long min_links = 3;
  double min_share = 0.05;
};

void print_usage(std::ostream& os) {
  os << "usage: prepare_rhymes --corpus <tang_poems.txt> --tones <tones.tsv> --out <file>\n"
     << "                      [--min-links N] [--min-share S]\n"
     << "  --min-links N  keep a link seen in at least N poems (default 3)\n"
     << "  --min-share S  ... and making up at least S of the links of the character with\n"
     << "                 fewer links (default 0.05)\n"
     << "  e.g. prepare_rhymes --corpus data/tang_poems.txt --tones data/tones.tsv "
        "--out data/rhymes.tsv\n";
}

long parse_count(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || value < 1) {
    throw DataError(flag + " needs a whole number of at least 1, not \"" + text + "\"");
  }
  return value;
}

double parse_share(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || !(value >= 0 && value <= 1)) {
    throw DataError(flag + " needs a number from 0 to 1, not \"" + text + "\"");
  }
  return value;
}

Options parse_args(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      print_usage(std::cout);
      std::exit(0);
    }
    if (i + 1 >= argc) throw DataError("unknown or incomplete argument: " + arg);
    const std::string value = argv[++i];
    if (arg == "--corpus") {
      opt.corpus = value;
    } else if (arg == "--tones") {
      opt.tones = value;
    } else if (arg == "--out") {
      opt.out = value;
    } else if (arg == "--min-links") {
      opt.min_links = parse_count(arg, value);
    } else if (arg == "--min-share") {
      opt.min_share = parse_share(arg, value);
    } else {
      throw DataError("unknown or incomplete argument: " + arg);
    }
  }
  if (opt.corpus.empty() || opt.tones.empty() || opt.out.empty()) {
    throw DataError("--corpus, --tones and --out are all required (see --help)");
  }
  return opt;
}

// ---------------------------------------------------------------------------
// tones.tsv: the characters whose class is 平.
std::set<char32_t> read_level_characters(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot open " + path.string() + " (prepare_tones writes it)");
  std::string line;
  if (!std::getline(in, line) || line != "character\tclass\tsource\tping_count\tze_count") {
    throw DataError(path.string() + ": not a tones.tsv (bad header line)");
  }
  std::set<char32_t> level;
  std::size_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, '\t');) fields.push_back(field);
    const auto character = fields.empty() ? std::nullopt : decode_utf8(fields[0]);
    const bool good = fields.size() == 5 && character && character->size() == 1 &&
                      (fields[1] == "平" || fields[1] == "仄" || fields[1] == "两");
    if (!good) {
      throw DataError(path.string() + ":" + std::to_string(line_number) +
                      ": expected character<TAB>平|仄|两<TAB>source<TAB>count<TAB>count");
    }
    if (fields[1] == "平") level.insert(character->front());
  }
  if (level.empty()) throw DataError(path.string() + ": no character is 平");
  return level;
}

// ---------------------------------------------------------------------------
// Greedy modularity over the kept links (rule 5). A group is named by its
// smallest code point; returns character -> that name.
std::map<char32_t, char32_t> modularity_groups(
    const std::vector<std::pair<std::pair<char32_t, char32_t>, std::size_t>>& kept) {
  std::map<char32_t, char32_t> group_of;                    // character -> its group's name
  std::map<char32_t, std::set<char32_t>> members;           // group -> its characters
  std::map<char32_t, double> vol;                           // group -> summed link weights
  std::map<char32_t, std::map<char32_t, double>> between;   // group -> group -> weight
  double m = 0.0;
  for (const auto& [pair, weight] : kept) {
    const auto [a, b] = pair;
    for (char32_t c : {a, b}) {
      group_of.emplace(c, c);
      members[c].insert(c);
    }
    const auto w = static_cast<double>(weight);
    vol[a] += w;
    vol[b] += w;
    between[a][b] += w;
    between[b][a] += w;
    m += w;
  }
  for (;;) {
    double best = 0.0;  // only joins that raise Q
    char32_t best_a = 0, best_b = 0;
    for (const auto& [a, links] : between) {
      for (const auto& [b, w] : links) {
        if (b <= a) continue;  // each pair once; ties go to the smaller names (map order)
        const double gain = w / m - vol[a] * vol[b] / (2.0 * m * m);
        if (gain > best) best = gain, best_a = a, best_b = b;
      }
    }
    if (best <= 0.0) break;
    // join best_b into best_a (best_a < best_b: the name stays the smallest code point)
    for (char32_t c : members[best_b]) group_of[c] = best_a;
    members[best_a].insert(members[best_b].begin(), members[best_b].end());
    members.erase(best_b);
    vol[best_a] += vol[best_b];
    vol.erase(best_b);
    for (const auto& [c, w] : between[best_b]) {
      between[c].erase(best_b);
      if (c == best_a) continue;
      between[best_a][c] += w;
      between[c][best_a] += w;
    }
    between.erase(best_b);
  }
  return group_of;
}

struct Group {
  std::vector<std::pair<char32_t, std::size_t>> members;  // (character, count), by count
  std::size_t total = 0;
};

int run(const Options& opt) {
  const auto level = read_level_characters(opt.tones);
  std::ifstream in(opt.corpus, std::ios::binary);
  if (!in) throw DataError("cannot open " + opt.corpus.string() + " (data/tang_poems.txt)");

  std::size_t poems = 0, quatrains = 0, octaves = 0, rhyme_positions = 0, level_positions = 0;
  std::map<char32_t, std::size_t> count;                       // rhyme character -> count
  std::map<std::pair<char32_t, char32_t>, std::size_t> links;  // (a < b) -> weight
  std::size_t line_number = 0;
  for (std::string text; std::getline(in, text);) {
    ++line_number;
    ++poems;
    const auto poem = decode_utf8(text);
    if (!poem) {
      throw DataError(opt.corpus.string() + ":" + std::to_string(line_number) + ": invalid UTF-8");
    }
    std::vector<char32_t> line_ends;  // the last character of each line
    for (std::size_t i = 1; i < poem->size(); ++i) {
      const char32_t c = (*poem)[i];
      if (is_line_end(c)) line_ends.push_back((*poem)[i - 1]);
    }
    if (line_ends.size() != 4 && line_ends.size() != 8) continue;
    ++(line_ends.size() == 4 ? quatrains : octaves);
    std::set<char32_t> rhymes;
    for (std::size_t k = 1; k < line_ends.size(); k += 2) {
      ++rhyme_positions;
      if (!level.count(line_ends[k])) continue;
      ++level_positions;
      ++count[line_ends[k]];
      rhymes.insert(line_ends[k]);
    }
    for (auto a = rhymes.begin(); a != rhymes.end(); ++a) {
      for (auto b = std::next(a); b != rhymes.end(); ++b) ++links[{*a, *b}];
    }
  }
  if (poems == 0) throw DataError(opt.corpus.string() + " has no poems");

  std::map<char32_t, std::size_t> links_of;  // character -> sum of its link weights
  std::size_t link_weight = 0;
  for (const auto& [pair, weight] : links) {
    links_of[pair.first] += weight;
    links_of[pair.second] += weight;
    link_weight += weight;
  }
  std::vector<std::pair<std::pair<char32_t, char32_t>, std::size_t>> kept_links;
  for (const auto& [pair, weight] : links) {
    const auto smaller = std::min(links_of[pair.first], links_of[pair.second]);
    if (weight < static_cast<std::size_t>(opt.min_links) ||
        static_cast<double>(weight) < opt.min_share * static_cast<double>(smaller)) {
      continue;
    }
    kept_links.emplace_back(pair, weight);
  }
  const std::size_t kept = kept_links.size();
  const std::map<char32_t, char32_t> group_of = modularity_groups(kept_links);

  std::map<char32_t, Group> by_root;
  for (const auto& [c, root] : group_of) {
    Group& g = by_root[root];
    g.members.emplace_back(c, count.at(c));
    g.total += count.at(c);
  }
  std::vector<Group> groups;
  for (auto& [root, g] : by_root) {
    std::sort(g.members.begin(), g.members.end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second > y.second : x.first < y.first;
    });
    groups.push_back(std::move(g));
  }
  std::sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) {
    if (x.members.size() != y.members.size()) return x.members.size() > y.members.size();
    if (x.total != y.total) return x.total > y.total;
    return x.members.front().first < y.members.front().first;
  });

  std::ostringstream tsv;
  tsv << "group\tcharacter\tcount\n";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const auto& [c, n] : groups[g].members) {
      tsv << g + 1 << '\t' << encode_utf8(c) << '\t' << n << '\n';
    }
  }
  write_file_whole(opt.out, tsv.str());

  std::size_t grouped_count = 0;
  for (const auto& g : groups) grouped_count += g.total;
  std::cout << "poems read:           " << poems << "\n"
            << "4- and 8-line poems:  " << quatrains + octaves << " (" << quatrains
            << " of 4 lines, " << octaves << " of 8)\n"
            << "even-line endings:    " << rhyme_positions << ", of them 平: " << level_positions
            << "\n"
            << "rhyme characters:     " << count.size() << "\n"
            << "links:                " << links.size() << " pairs, weight " << link_weight << "\n"
            << "links kept:           " << kept << " (weight >= " << opt.min_links
            << " and >= " << opt.min_share << " of the smaller character's links)\n"
            << "characters in groups: " << group_of.size() << " (" << grouped_count
            << " of the " << level_positions << " 平 endings)\n"
            << "groups:               " << groups.size() << "\n"
            << "sizes:               ";
  for (const auto& g : groups) std::cout << " " << g.members.size();
  std::cout << "\n";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::cout << "  " << g + 1 << ":";
    for (std::size_t k = 0; k < groups[g].members.size() && k < 10; ++k) {
      std::cout << " " << encode_utf8(groups[g].members[k].first);
    }
    std::cout << "\n";
  }
  std::cout << "written to:           " << opt.out.string() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return poetry::run_reporting_errors("prepare_rhymes",
                                      [&] { return run(parse_args(argc, argv)); });
}
