// EXERCISE 07a: does a line of verse have the tones its pattern asks for?
//
// std::vector<std::size_t> tone_mismatches(line, pattern)
//
//   line     (n) the tone class of each character of the line (verse_tables.hpp):
//            Tone::kPing 平, Tone::kZe 仄, Tone::kEither 两 (read either way)
//   pattern  (n) what each position needs: kPing, kZe, or kEither (中: anything);
//            position i (1-based) is line[i - 1] against pattern[i - 1]
//
// Return the 1-based positions, in increasing order, where the character does
// not fit. A character fits its position when
//   the position takes anything (kEither), or
//   the character can be read either way (kEither), or
//   both are the same tone.
// So {平, 仄, 平} against {中, 平, 平} gives {2}; an empty result means the line fits.
// Throw std::invalid_argument (naming both lengths) when line and pattern are
// not the same length: a 5-character pattern cannot check a 7-character line.
//
// check_verse builds each line's pattern from the rules (verse_form.hpp) and
// turns every position you return into a message: "position 4: '月' is 仄,
// needs 平 (二四六分明)".
// Tests: ctest --preset yours -L '^yours_07a$' (tests/exercises/exercise_07a_test.cpp).

#include "07_verse/exercise/line_tones.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "07_verse/verse_tables.hpp"
#include "errors.hpp"

namespace tang::mine {

std::vector<std::size_t> tone_mismatches(std::span<const Tone> line,
                                         std::span<const Tone> pattern) {
  (void)line, (void)pattern;
  throw NotImplemented(
      "not implemented yet: see exercise 07a (lessons/07_verse/exercise/line_tones.cpp)");
}

}  // namespace tang::mine
