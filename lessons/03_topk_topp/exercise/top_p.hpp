// exercise/top_p.hpp: EXERCISE 03, top-p (nucleus) filtering (the seed's exercise 1).
//
// You write this function in exercise/top_p.cpp (the comment there says
// exactly what it must do). Check it with
//   cmake --preset learner && cmake --build --preset learner --target exercise_tests
//   ctest --preset learner -L exercise_03
// and see it write poems at T = 1.5, p = 0.9 next to the reference with
//   build/learner/lessons/03_topk_topp/lesson_03_topk_topp --mine
// The reference solution is solution/top_p.cpp (docs/exercises.md).
#pragma once

#include <span>

namespace tang::mine {

// Keeps the smallest set of most likely characters whose probabilities reach
// p, zeroes the rest and renormalises, in place.
void top_p_filter(std::span<float> probabilities, float p);

}  // namespace tang::mine
