// verse_form.hpp: the four forms of regular verse and the tones they ask for.
//
//   五绝 4 lines of 5    七绝 4 lines of 7    五律 8 lines of 5    七律 8 lines of 7
//
// The rules (近体诗格律), as this course checks and writes them:
//   二四六分明   in a line, positions 2, 4, 6 alternate: 平仄平 or 仄平仄
//   一三五不论   positions 1, 3, 5 may be either (the usual relaxation)
//   对           the second line of a couplet is the opposite of the first at 2, 4, 6
//   粘           the first line of the next couplet has the tones of the line before it
//   rhyme        even lines end in 平, all in one rhyme group; odd lines end in 仄,
//                except that the first line may rhyme too (首句入韵)
// So the second character of the first line decides the whole pattern: 平起 (平)
// or 仄起 (仄); only whether the first line rhymes is left to choose.
//
// Example, 七绝, 平起, first line rhyming (中 = either):
//   中平中仄中平平   (rhymes)
//   中仄中平中仄平   (rhymes)
//   中仄中平中仄仄
//   中平中仄中平平   (rhymes)
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "07_verse/verse_tables.hpp"

namespace tang {

struct VerseForm {
  std::string name;   // 五绝, 七绝, 五律 or 七律
  std::size_t lines;  // 4 or 8
  std::size_t chars;  // characters a line, punctuation not counted: 5 or 7
};

// The four forms, in the order above.
const std::vector<VerseForm>& verse_forms();
std::optional<VerseForm> form_named(const std::string& name);
// Their names for a message: "五绝, 七绝, 五律 or 七律".
std::string form_names();
std::optional<VerseForm> form_of_shape(std::size_t lines, std::size_t chars);

// What each position of each line needs (kEither: anything), and which lines rhyme.
struct VersePattern {
  Tone start = Tone::kPing;              // 平起 or 仄起: position 2 of line 1
  bool first_line_rhymes = true;         // 首句入韵
  std::vector<std::vector<Tone>> lines;  // (lines, chars)
  std::vector<bool> rhymes;              // (lines): the line ends in the rhyme

  std::string describe() const;  // e.g. "平起, first line rhymes"
};

VersePattern verse_pattern(const VerseForm& form, Tone start, bool first_line_rhymes);

// The textbook default of a form: 七言 平起 with a rhyming first line, 五言 仄起
// without (the most common shapes in Tang regular verse).
VersePattern default_pattern(const VerseForm& form);

}  // namespace tang
