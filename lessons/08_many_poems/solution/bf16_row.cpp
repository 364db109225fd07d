// SOLUTION to exercise 08b (the learner's file is exercise/bf16_row.cpp,
// whose comment specifies the behaviour).

#include "08_many_poems/exercise/bf16_row.hpp"

#include <bit>

namespace tang::reference {

void round_to_bf16(const float* x, std::size_t n, std::uint16_t* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x[i]);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: quiet, never rounded into infinity
      out[i] = static_cast<std::uint16_t>((bits >> 16) | 0x40u);
      continue;
    }
    // Adding 0x7fff plus the lowest kept bit carries into the top half exactly
    // when low > 0x8000, or low == 0x8000 and the top half is odd.
    out[i] = static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  }
}

}  // namespace tang::reference
