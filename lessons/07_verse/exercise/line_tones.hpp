// exercise/line_tones.hpp: EXERCISE 07a, the tone check of one line, the core
// of check_verse.
//
// check_verse (check_verse.hpp) and lesson 07 call this for every line of a
// poem. They run the reference solution (solution/line_tones.cpp) unless started
// with --yours 07a; then YOUR file exercise/line_tones.cpp, whose comment says
// exactly what it must do. Check yours with
//   cmake --build --preset release --target exercise_07a_test
//   ctest --preset yours -L '^yours_07a$'
//   build/release/lessons/07_verse/lesson_07_verse --yours 07a
// or check_verse with a poem of yours after --yours 07a (the page shows how).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "07_verse/verse_tables.hpp"

namespace tang::mine {

// The 1-based positions at which `line` does not fit `pattern`.
std::vector<std::size_t> tone_mismatches(std::span<const Tone> line, std::span<const Tone> pattern);

}  // namespace tang::mine

// The reference solution's (solution/line_tones.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::tone_mismatches) tone_mismatches;
}  // namespace tang::reference

// What the lesson and check_verse call: the reference solution's, or with --yours 07a yours,
// checked against it at every call (line_tones_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::tone_mismatches) tone_mismatches;
}  // namespace tang
