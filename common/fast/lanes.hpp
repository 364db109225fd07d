// lanes.hpp (under the hood): the end of four dot products held in vector lanes.
//
// A product that keeps eight partial sums per output (ops::dot's lanes) ends
// each with the lanes added pairwise: (l0+l4 + l2+l6) + (l1+l5 + l3+l7), the
// order ops.cpp's finish_dot adds them. Four outputs at once in vector
// registers: a scalar sum for each of a block's outputs would cost more than
// the multiplying on our model's 128-wide rows.
#pragma once

#include <cstring>

namespace tang::fast {

using Eight = float __attribute__((vector_size(32)));
using Four = float __attribute__((vector_size(16)));

// out[r] = the sum of the eight lanes of v[r], r = 0 .. 3.
inline void add_lanes4(float* out, const Eight (&v)[4]) {
  Four half[4];  // l[k] + l[k + 4]
  for (std::size_t r = 0; r < 4; ++r)
    half[r] = __builtin_shufflevector(v[r], v[r], 0, 1, 2, 3) +
              __builtin_shufflevector(v[r], v[r], 4, 5, 6, 7);
  const Four rows01 = __builtin_shufflevector(half[0], half[1], 0, 1, 4, 5) +  // h0 + h2, h1 + h3
                      __builtin_shufflevector(half[0], half[1], 2, 3, 6, 7);
  const Four rows23 = __builtin_shufflevector(half[2], half[3], 0, 1, 4, 5) +
                      __builtin_shufflevector(half[2], half[3], 2, 3, 6, 7);
  const Four sums = __builtin_shufflevector(rows01, rows23, 0, 2, 4, 6) +
                    __builtin_shufflevector(rows01, rows23, 1, 3, 5, 7);
  std::memcpy(out, &sums, sizeof sums);
}

}  // namespace tang::fast
