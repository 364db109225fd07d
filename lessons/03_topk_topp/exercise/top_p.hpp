// exercise/top_p.hpp: EXERCISE 03, top-p (nucleus) filtering.
//
// Lesson 03's section 3 trims the distribution with this function (every
// lesson from 03 on runs that section), and so do lesson 11's requests that set top_p
// and lesson 12's sampler when top-p is on; the other sections write with
// top-p off. It runs the reference solution (solution/top_p.cpp) unless started
// with --yours 03; then YOUR file exercise/top_p.cpp, whose comment says exactly
// what it must do. Check yours with
//   cmake --build --preset release --target exercise_03_test
//   ctest --preset yours -L '^yours_03$'
//   build/release/lessons/03_topk_topp/lesson_03_topk_topp --yours 03
#pragma once

#include <span>

namespace tang::mine {

// Keeps the smallest set of most likely characters whose probabilities reach
// p, zeroes the rest and renormalises, in place.
void top_p_filter(std::span<float> probabilities, float p);

}  // namespace tang::mine

// The reference solution's (solution/top_p.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::top_p_filter) top_p_filter;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 03 yours, checked
// against it at every call (top_p_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::top_p_filter) top_p_filter;
}  // namespace tang
