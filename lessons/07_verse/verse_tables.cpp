#include "07_verse/verse_tables.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

std::string character_tone_name(Tone tone) {
  return tone == Tone::kPing ? "平" : tone == Tone::kZe ? "仄" : "两";
}

std::string pattern_tone_name(Tone tone) {
  return tone == Tone::kPing ? "平" : tone == Tone::kZe ? "仄" : "中";
}

Tone opposite(Tone tone) {
  return tone == Tone::kPing ? Tone::kZe : tone == Tone::kZe ? Tone::kPing : Tone::kEither;
}

namespace {

struct Row {
  std::size_t line;                 // its line number in the file
  std::vector<std::string> fields;  // tab-separated
};

// Every line after the header; throws UserError when the file cannot be read,
// the header is not `header`, or a line has fewer than `fields` fields.
std::vector<Row> read_tsv(const std::string& path, const std::string& header, std::size_t fields) {
  std::ifstream in(path);
  if (!in) {
    throw UserError("cannot read " + path +
                    ": lesson 07 needs data/tones.tsv and data/rhymes.tsv (scripts/"
                    "rebuild_verse_data.sh rebuilds them)");
  }
  std::string line;
  if (!std::getline(in, line) || line.rfind(header, 0) != 0) {
    throw UserError(path + ": the first line should start with '" + header +
                    "': is this the right file?");
  }
  std::vector<Row> rows;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    std::vector<std::string> row;
    std::istringstream fields_of(line);
    for (std::string field; std::getline(fields_of, field, '\t');) row.push_back(field);
    if (row.size() < fields) {
      throw UserError(path + " line " + std::to_string(number) + ": expected " +
                      std::to_string(fields) + " tab-separated fields");
    }
    rows.push_back({number, std::move(row)});
  }
  return rows;
}

// The character a row is about: exactly one UTF-8 character, listed once.
const std::string& one_character(const std::string& path, const Row& row, std::size_t column,
                                 std::map<std::string, std::size_t>& seen) {
  const std::string& c = row.fields[column];
  const std::string where = path + " line " + std::to_string(row.line);
  std::vector<std::string> characters;
  try {
    characters = utf8_split(c);
  } catch (const UserError& e) {
    throw UserError(where + ": " + e.what());
  }
  if (characters.size() != 1) {
    throw UserError(where + ": '" + printable(c) + "' is " + std::to_string(characters.size()) +
                    " characters, and each row is about one: fix or rebuild the table "
                    "(scripts/rebuild_verse_data.sh)");
  }
  const auto [it, fresh] = seen.emplace(c, row.line);
  if (!fresh) {
    throw UserError(
        where + ": '" + c + "' is listed again (first on line " + std::to_string(it->second) +
        "): each character once; fix or rebuild the table (scripts/rebuild_verse_data.sh)");
  }
  return c;
}

}  // namespace

VerseTables VerseTables::load(const std::string& tones_path, const std::string& rhymes_path) {
  VerseTables t;
  std::map<std::string, std::size_t> seen;  // character -> its line
  for (const Row& row : read_tsv(tones_path, "character\tclass", 2)) {
    const std::string& character = one_character(tones_path, row, 0, seen);
    const std::string& c = row.fields[1];
    const Tone tone = c == "平" ? Tone::kPing : c == "仄" ? Tone::kZe : Tone::kEither;
    if (c != "平" && c != "仄" && c != "两") {
      throw UserError(tones_path + " line " + std::to_string(row.line) + ": the class of '" +
                      character + "' is '" + c + "', expected 平, 仄 or 两");
    }
    t.tones_[character] = tone;
  }
  seen.clear();
  for (const Row& row : read_tsv(rhymes_path, "group\tcharacter", 2)) {
    const std::string& character = one_character(rhymes_path, row, 1, seen);
    int group = 0;
    try {
      group = std::stoi(row.fields[0]);
    } catch (const std::exception&) {
      group = 0;
    }
    if (group < 1 || group > t.group_count_ + 1) {
      throw UserError(rhymes_path + " line " + std::to_string(row.line) + ": group '" +
                      row.fields[0] + "' of '" + character +
                      "' is not the current group or the next one");
    }
    t.group_count_ = std::max(t.group_count_, group);
    t.group_of_[character] = group;
  }
  if (t.tones_.empty() || t.group_count_ == 0) {
    throw UserError("the tone or rhyme table is empty (" + tones_path + ", " + rhymes_path + ")");
  }
  return t;
}

VerseTables VerseTables::load_shipped() {
  const std::string dir = TANG_DATA_DIR;
  return load(dir + "/tones.tsv", dir + "/rhymes.tsv");
}

std::optional<Tone> VerseTables::tone(const std::string& character) const {
  const auto it = tones_.find(character);
  if (it == tones_.end()) return std::nullopt;
  return it->second;
}

std::optional<int> VerseTables::rhyme_group(const std::string& character) const {
  const auto it = group_of_.find(character);
  if (it == group_of_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tang
