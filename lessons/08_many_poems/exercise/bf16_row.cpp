// EXERCISE 08b: bf16 weights, the format most models are trained and shipped in.
//
// void round_to_bf16(x, n, out)
//
//   x    (n) the floats of one row
//   out  (n) receives one bfloat16 per float, as its 16 bits
//
// A float32 is 32 bits: 1 sign, 8 exponent, 23 mantissa bits. A bfloat16 keeps
// the top 16 of them: the same sign and exponent (so the same range, from
// 1e-38 to 3e38), and only 7 mantissa bits (about 2 to 3 decimal digits). For
// each x_i, take its bits (std::bit_cast<std::uint32_t>) and keep the top half,
// rounded to the nearest bfloat16 by the 16 bits dropped, `low`:
//   low  < 0x8000   round down: the top half as it is
//   low  > 0x8000   round up: the top half plus one
//   low == 0x8000   a tie, exactly halfway: round to even, i.e. up only when the
//                   top half is odd (its lowest bit is 1)
// Rounding up may carry into the exponent: 0x3FFFFFFF (1.99999988) becomes
// 0x4000 (2.0), and the largest float becomes infinity (0x7F80). That is right.
// Except for NaN (exponent all ones, mantissa not zero: (bits & 0x7FFFFFFF) >
// 0x7F800000): rounding could turn it into infinity, so a NaN becomes its top
// half with bit 0x0040 set (a "quiet" NaN, a NaN whatever was dropped).
// Infinity and zero round to themselves (their low bits are zero), and the
// sign never changes.
//
// What you get back: each weight moves by at most half a step of its own
// 7-bit mantissa, |x - bf16(x)| <= |x| / 256, a bound relative to the weight
// itself (compare int8's, exercise 08a). A weight costs 2 bytes instead of 4.
// StoredMatrix widens each one back to float32 by shifting its 16 bits up
// (float_from_bf16, exercise/bf16_row.hpp) as it multiplies.
// Hints: std::bit_cast (<bit>), shifts and masks on std::uint32_t.
// Tests: ctest --preset yours -L '^yours_08b$' (tests/exercises/exercise_08b_test.cpp).

#include "08_many_poems/exercise/bf16_row.hpp"

#include <bit>
#include <cstdint>

#include "errors.hpp"

namespace tang::mine {

void round_to_bf16(const float* x, std::size_t n, std::uint16_t* out) {
  (void)x, (void)n, (void)out;
  throw NotImplemented(
      "not implemented yet: see exercise 08b (lessons/08_many_poems/exercise/bf16_row.cpp)");
}

}  // namespace tang::mine
