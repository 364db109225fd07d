// vector_math.hpp (under the hood): let the compiler call expf and erff 8 or 16 at a time.
//
// A loop such as   for (i) out[i] = erff(x[i]);   stays scalar: the compiler
// cannot vectorise a call to a function it knows nothing about. glibc ships
// vector versions of these functions in libmvec (_ZGVeN16v_erff takes 16
// floats in one AVX-512 register), and declaring the functions `simd` tells
// GCC they exist; a loop marked `#pragma omp simd` then calls them. Their
// results are within a few units in the last place of the scalar ones.
//
// glibc's own <math.h> makes these declarations only under -ffast-math, which
// would also loosen everything else; this header makes just these two. Other
// compilers and C libraries see nothing here and get the scalar calls.
//
// Below them, the two loops every softmax in the course is made of, written
// once so that each softmax (sampling, attention, the training loss) is fast.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

#if defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) && defined(__x86_64__)
extern "C" {
__attribute__((simd("notinbranch"))) float expf(float) noexcept;
__attribute__((simd("notinbranch"))) float erff(float) noexcept;
}
#endif

namespace tang {

// The largest of x[0..n), n >= 1, several lanes at a time. (Written with ?:
// because GCC 12 does not vectorise this reduction through std::max.)
inline float max_of(const float* x, std::size_t n) {
  float largest = x[0];
#pragma omp simd reduction(max : largest)
  for (std::size_t i = 1; i < n; ++i) largest = largest > x[i] ? largest : x[i];
  return largest;
}

// out[i] = exp(x[i] - max) for i < n, and the sum of them: the middle of a
// softmax. out may be x itself. Anything under 1e-34 (a difference below about
// -78) is written as exactly 0: nothing next to the exp(0) = 1 of the largest,
// and it makes -inf (masked out, e.g. after top-k) give 0. Three simple loops,
// because GCC vectorises a call to exp only in a loop without any ?: in it:
//   1. d = max(x - max, -80): -inf and huge differences would send the vector
//      exp to its slow path, and exp(-80) = 1.8e-35 is still under 1e-34
//   2. exp(d), 8 or 16 at a time
//   3. zero what is under 1e-34 and add up (in vector lanes, so the last bit
//      of the sum can differ from a left-to-right sum)
inline float exp_minus_max_and_sum(float* out, const float* x, std::size_t n, float max) {
  constexpr float kLowest = -80.0f, kZeroBelow = 1e-34f;
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    const float d = x[i] - max;
    out[i] = d < kLowest ? kLowest : d;  // (a NaN stays NaN)
  }
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) out[i] = std::exp(out[i]);
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = out[i] < kZeroBelow ? 0.0f : out[i];
    sum += out[i];
  }
  return sum;
}

}  // namespace tang

namespace tang::fast {

// Lesson 01's softmax with the loops above: exp 8 or 16 at a time, the sum in
// vector lanes, one reciprocal. Within about 1e-4 (relative) of the plain
// softmax_in_place (common/sampling.hpp), whose total is one long left-to-right
// float sum over all 7,129 characters.
inline void softmax_in_place(std::span<float> logits) {
  float* z = logits.data();
  const float max = max_of(z, logits.size());
  const float sum = exp_minus_max_and_sum(z, z, logits.size(), max);
  const float scale = 1.0f / sum;  // one division, then multiplications
  for (float& p : logits) p *= scale;
}

}  // namespace tang::fast
