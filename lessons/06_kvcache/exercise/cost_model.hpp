// exercise/cost_model.hpp: EXERCISE 06c: predict the KV cache's speed-up from
// what a step reads and computes, before timing it.
//
// Lesson 06 measures two costs (cost_model.hpp: t1, a one-position step, and
// b, what each more position in a window adds) and prints your predictions
// next to the measured speed-ups. The default build compiles the reference
// solution (solution/cost_model.cpp), the `learner` preset YOUR file
// exercise/cost_model.cpp, whose comment says exactly what it must do:
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_06c
//   build/learner/lessons/06_kvcache/lesson_06_kvcache
#pragma once

#include <cstddef>

namespace tang::mine {

// Positions run through the model to write n characters after a newline, with
// a context of block_size: without the cache and with it.
std::size_t positions_without_cache(std::size_t n, std::size_t block_size);
std::size_t positions_with_cache(std::size_t n);

// The predicted speed-up (time without the cache / time with it) for n
// characters, when a step over k positions costs t1 + (k - 1) * b.
double predicted_speedup(std::size_t n, double t1, double b, std::size_t block_size);

}  // namespace tang::mine
