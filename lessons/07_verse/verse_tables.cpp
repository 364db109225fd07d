#include "07_verse/verse_tables.hpp"

#include <fstream>
#include <sstream>

#include "errors.hpp"

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

// The tab-separated fields of every line after the header; throws UserError
// when the file cannot be read, the header is not `header`, or a line has
// fewer than `fields` fields.
std::vector<std::vector<std::string>> read_tsv(const std::string& path, const std::string& header,
                                               std::size_t fields) {
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
  std::vector<std::vector<std::string>> rows;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    std::vector<std::string> row;
    std::istringstream fields_of(line);
    for (std::string field; std::getline(fields_of, field, '\t');) row.push_back(field);
    if (row.size() < fields) {
      throw UserError(path + " line " + std::to_string(number) + ": expected " +
                      std::to_string(fields) + " tab-separated fields");
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

VerseTables VerseTables::load(const std::string& tones_path, const std::string& rhymes_path) {
  VerseTables t;
  for (const auto& row : read_tsv(tones_path, "character\tclass", 2)) {
    const std::string& c = row[1];
    const Tone tone = c == "平" ? Tone::kPing : c == "仄" ? Tone::kZe : Tone::kEither;
    if (c != "平" && c != "仄" && c != "两") {
      throw UserError(tones_path + ": the class of '" + row[0] + "' is '" + c +
                      "', expected 平, 仄 or 两");
    }
    t.tones_[row[0]] = tone;
  }
  for (const auto& row : read_tsv(rhymes_path, "group\tcharacter", 2)) {
    int group = 0;
    try {
      group = std::stoi(row[0]);
    } catch (const std::exception&) {
      group = 0;
    }
    if (group < 1 || group > static_cast<int>(t.groups_.size()) + 1) {
      throw UserError(rhymes_path + ": group '" + row[0] + "' of '" + row[1] +
                      "' is not the current group or the next one");
    }
    if (group > static_cast<int>(t.groups_.size())) t.groups_.emplace_back();
    t.groups_[static_cast<std::size_t>(group - 1)].push_back(row[1]);
    t.group_of_[row[1]] = group;
  }
  if (t.tones_.empty() || t.groups_.empty()) {
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

const std::vector<std::string>& VerseTables::group_members(int group) const {
  return groups_.at(static_cast<std::size_t>(group - 1));
}

}  // namespace tang
