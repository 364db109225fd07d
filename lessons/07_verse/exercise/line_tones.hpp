// exercise/line_tones.hpp: EXERCISE 07a, the tone check of one line, the core
// of check_verse.
//
// check_verse (check_verse.hpp) and lesson 07 call this for every line of a
// poem: the default build compiles the reference solution
// (solution/line_tones.cpp), the `learner` preset YOUR file
// exercise/line_tones.cpp, whose comment says exactly what it must do. Check
// yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_07a
//   build/learner/lessons/07_verse/check_verse 床前明月光，疑是地上霜。举头望明月，低头思故乡。
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "verse_tables.hpp"

namespace tang::mine {

// The 1-based positions at which `line` does not fit `pattern`.
std::vector<std::size_t> tone_mismatches(std::span<const Tone> line, std::span<const Tone> pattern);

}  // namespace tang::mine
