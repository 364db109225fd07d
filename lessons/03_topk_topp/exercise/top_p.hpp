// exercise/top_p.hpp: EXERCISE 03, top-p (nucleus) filtering.
//
// Lesson 03 (and every later lesson) trims the distribution with this
// function: the default build compiles the reference solution
// (solution/top_p.cpp), the `learner` preset YOUR file exercise/top_p.cpp,
// whose comment says exactly what it must do. Check yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L '^exercise_03$'
//   build/learner/lessons/03_topk_topp/lesson_03_topk_topp
#pragma once

#include <span>

namespace tang::mine {

// Keeps the smallest set of most likely characters whose probabilities reach
// p, zeroes the rest and renormalises, in place.
void top_p_filter(std::span<float> probabilities, float p);

}  // namespace tang::mine

// The reference solution's top_p_filter (solution/, compiled a second time as
// tang::reference), which the learner build compares yours with
// (common/reference_check.hpp).
namespace tang::reference {
void top_p_filter(std::span<float> probabilities, float p);
}  // namespace tang::reference
