// quantize_run.hpp: small integers with one scale for a run of numbers.
//
// A run of n numbers (every stride-th one) is stored as codes q in
// [-qmax, qmax] and one float scale, x ~ scale x q, with scale = max |x| / qmax:
// the run's largest number sets the step for all of them. qmax is 127 for int8,
// 7 for int4 (lesson 13 compares the runs: a row, a group, a channel).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tang {

inline constexpr int kInt8Largest = 127;  // int8 codes in [-127, 127]
inline constexpr int kInt4Largest = 7;    // int4 codes in [-7, 7]

// x[0], x[stride], ... x[(n-1) stride] -> codes at the same places; returns the
// scale (0 when every number is 0; the codes are then 0).
float quantize_run(const float* x, std::size_t n, std::size_t stride, int qmax, std::int8_t* codes);

// codes at x[0], x[stride], ... -> scale x code.
void dequantize_run(const std::int8_t* codes, float scale, std::size_t n, std::size_t stride,
                    float* x);

}  // namespace tang
