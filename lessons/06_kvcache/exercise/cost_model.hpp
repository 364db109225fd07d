// exercise/cost_model.hpp: EXERCISE 06c: predict the KV cache's speed-up from
// what a step reads and computes, before timing it.
//
// Lesson 06 measures two costs (cost_model.hpp: t1, a one-position step, and
// b, what each more position in a window adds) and prints your predictions
// next to the measured speed-ups. It runs the reference solution
// (solution/cost_model.cpp) unless started with --yours 06c; then YOUR file
// exercise/cost_model.cpp, whose comment says exactly what it must do:
//   cmake --build --preset release --target exercise_06c_test
//   ctest --preset yours -L '^yours_06c$'
//   build/release/lessons/06_kvcache/lesson_06_kvcache --yours 06c
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

// The reference solution's (solution/cost_model.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::positions_without_cache) positions_without_cache;
decltype(mine::positions_with_cache) positions_with_cache;
decltype(mine::predicted_speedup) predicted_speedup;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 06c yours, checked
// against it at every call (cost_model_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::positions_without_cache) positions_without_cache;
decltype(mine::positions_with_cache) positions_with_cache;
decltype(mine::predicted_speedup) predicted_speedup;
}  // namespace tang
