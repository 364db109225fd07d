// EXERCISE 08a: int8 weights in blocks of 32, the way llama.cpp's Q8_0 stores them.
//
// void quantize_row(x, n, quants, scales)
//
//   x       (n) the floats of one row; n is a multiple of 32
//   quants  (n) receives one int8 per float
//   scales  (n / 32) receives one float per block of 32
//
// Cut the row into blocks of 32 (values 0..31, 32..63, ...). For each block b:
//   scale = max |x_i| over the block, divided by 127: max / 127.0f, in float.
//           When scale is 0 (a block of zeros) every quant of the block is 0:
//           do not divide by it.
//   q_i   = x_i / scale rounded to the nearest integer, halves away from zero
//           (std::lround: 2.5 -> 3, -2.5 -> -3), then clamped to [-127, 127].
//           The largest value of the block becomes +-127; -128 is never used,
//           so that a block and its negation store the same numbers.
//   scales[b] = scale, quants[32 b + i] = q_i.
//
// void dequantize_row(quants, scales, n, x)
//
//   quants  (n) one int8 per float, as quantize_row writes them
//   scales  (n / 32) one float per block of 32; n is a multiple of 32
//   x       (n) receives the floats of the row
//
//   x_i = q_i * scale of its block (the int8 as a float, times the float scale).
//
// Both throw std::invalid_argument (naming n) when n is not a multiple of 32.
//
// What you get back: rounding moves each value by at most half a step, so
// |x_i - x'_i| <= scale / 2 for every element of a block (plus float rounding),
// a bound relative to the largest value of its block, not to x_i itself: small
// weights next to a large one lose most of their digits. A block costs 32 bytes
// of quants and 4 of scale, 1.125 bytes a weight instead of fp32's 4.
//
// StoredMatrix (stored_weights.hpp) quantizes every weight row with your
// quantize_row when the model is loaded; before a matmul it quantizes each input
// row the same way with its own loop (quantize_input, which writes 16-bit
// integers for the multiply), then multiplies the blocks in integers.
// Hints: std::abs, std::max, std::lround and std::clamp; keep max and scale in float.
// Tests: ctest --preset yours -L '^yours_08a$' (tests/exercises/exercise_08a_test.cpp).

#include "08_many_poems/exercise/quantize_row.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "errors.hpp"

namespace tang::mine {

void quantize_row(const float* x, std::size_t n, std::int8_t* quants, float* scales) {
  (void)x, (void)n, (void)quants, (void)scales;
  throw NotImplemented(
      "not implemented yet: see exercise 08a (lessons/08_many_poems/exercise/quantize_row.cpp)");
}

void dequantize_row(const std::int8_t* quants, const float* scales, std::size_t n, float* x) {
  (void)quants, (void)scales, (void)n, (void)x;
  throw NotImplemented(
      "not implemented yet: see exercise 08a (lessons/08_many_poems/exercise/quantize_row.cpp)");
}

}  // namespace tang::mine
