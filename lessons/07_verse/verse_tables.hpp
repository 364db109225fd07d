// verse_tables.hpp: the two tables lesson 07 writes regular verse with.
//
//   data/tones.tsv   every character of the corpus: 平 (level), 仄 (oblique) or
//                    两 (the poets used it both ways, e.g. 看 思 长)
//   data/rhymes.tsv  rhyme groups (韵部) found in the corpus: characters that end
//                    the even lines of the same poems, numbered 1, 2, ... by size
//
// data/README.md says how both are built (scripts/rebuild_verse_data.sh).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tang {

// A character's tone class, and what a position of a pattern asks for:
//   kPing    平
//   kZe      仄
//   kEither  for a character: either reading (两); for a position: anything (中)
enum class Tone : char { kPing, kZe, kEither };

// "平", "仄" or, for kEither, "两" (a character) / "中" (a pattern position).
std::string character_tone_name(Tone tone);
std::string pattern_tone_name(Tone tone);

// The tone that is not `tone` (平 <-> 仄; kEither stays kEither).
Tone opposite(Tone tone);

class VerseTables {
 public:
  // Reads both files; throws UserError naming the file and line of a problem.
  static VerseTables load(const std::string& tones_path, const std::string& rhymes_path);
  // data/tones.tsv and data/rhymes.tsv of this repository.
  static VerseTables load_shipped();

  // nullopt: the character is not in the table (punctuation, a rare character).
  std::optional<Tone> tone(const std::string& character) const;
  // The rhyme group, 1 .. group_count(); nullopt when the character is in none.
  std::optional<int> rhyme_group(const std::string& character) const;
  int group_count() const { return group_count_; }

 private:
  std::unordered_map<std::string, Tone> tones_;
  std::unordered_map<std::string, int> group_of_;
  int group_count_ = 0;  // the groups are numbered 1 .. group_count_
};

}  // namespace tang
