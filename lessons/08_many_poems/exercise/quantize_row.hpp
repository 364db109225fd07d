// exercise/quantize_row.hpp: EXERCISE 08a, int8 weights in blocks of 32.
//
// StoredMatrix (stored_weights.hpp) stores every row of an int8 matrix with
// these two functions: the default build compiles the reference solution
// (solution/quantize_row.cpp), the `learner` preset YOUR file
// exercise/quantize_row.cpp, whose comment says exactly what it must do.
// Check yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_08a
//   build/learner/lessons/08_many_poems/lesson_08_many_poems --section 8 --weights int8
#pragma once

#include <cstddef>
#include <cstdint>

namespace tang::mine {

constexpr std::size_t kQuantBlock = 32;  // weights sharing one scale

// x (n) -> quants (n) and scales (n / 32); n must be a multiple of 32.
void quantize_row(const float* x, std::size_t n, std::int8_t* quants, float* scales);

// quants (n) and scales (n / 32) -> x (n).
void dequantize_row(const std::int8_t* quants, const float* scales, std::size_t n, float* x);

}  // namespace tang::mine
