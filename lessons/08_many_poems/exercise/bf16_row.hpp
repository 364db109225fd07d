// exercise/bf16_row.hpp: EXERCISE 08b, bf16 weights: a row of float32 rounded
// to bfloat16.
//
// StoredMatrix (stored_weights.hpp) stores every row of a bf16 matrix with this
// function when the model is loaded. It runs the reference solution
// (solution/bf16_row.cpp) unless the lesson is started with --yours 08b; then
// YOUR file exercise/bf16_row.cpp, whose comment says exactly what it must do.
// Check yours with
//   cmake --build --preset release --target exercise_08b_test
//   ctest --preset yours -L '^yours_08b$'
//   build/release/lessons/08_many_poems/lesson_08_many_poems --yours 08b --section 8 --weights bf16
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace tang::mine {

// x (n) float32 -> out (n) bfloat16 bits, each rounded to the nearest, ties to even.
void round_to_bf16(const float* x, std::size_t n, std::uint16_t* out);

}  // namespace tang::mine

// The reference solution's (solution/bf16_row.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::round_to_bf16) round_to_bf16;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 08b yours, checked
// against it at every call (bf16_row_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::round_to_bf16) round_to_bf16;

// Widening back is exact: the 16 bits become the top half of a float32
// (StoredMatrix's bf16 rows and lesson 13's bf16 cache are read so).
inline float float_from_bf16(std::uint16_t h) {
  return std::bit_cast<float>(std::uint32_t{h} << 16);
}
}  // namespace tang
