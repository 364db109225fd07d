// exercise/quantize_row.hpp: EXERCISE 08a, int8 weights in blocks of 32.
//
// StoredMatrix (stored_weights.hpp) stores every row of an int8 matrix with
// these two functions. It runs the reference solution (solution/quantize_row.cpp)
// unless the lesson is started with --yours 08a; then YOUR file
// exercise/quantize_row.cpp, whose comment says exactly what it must do. Check
// yours with
//   cmake --build --preset release --target exercise_08a_test
//   ctest --preset yours -L '^yours_08a$'
//   build/release/lessons/08_many_poems/lesson_08_many_poems --yours 08a --section 8 --weights int8
#pragma once

#include <cstddef>
#include <cstdint>

namespace tang {
constexpr std::size_t kQuantBlock = 32;  // weights sharing one scale
}  // namespace tang

namespace tang::mine {

// x (n) -> quants (n) and scales (n / 32); n must be a multiple of 32.
void quantize_row(const float* x, std::size_t n, std::int8_t* quants, float* scales);

// quants (n) and scales (n / 32) -> x (n).
void dequantize_row(const std::int8_t* quants, const float* scales, std::size_t n, float* x);

}  // namespace tang::mine

// The reference solution's (solution/quantize_row.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::quantize_row) quantize_row;
decltype(mine::dequantize_row) dequantize_row;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 08a yours, checked
// against it at every call (quantize_row_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::quantize_row) quantize_row;
decltype(mine::dequantize_row) dequantize_row;
}  // namespace tang
