// vector_gelu.cpp (under the hood): GELU for the serving engine's tuned path,
// its erf written out so that the compiler runs it 8 or 16 at a time.
//
// The lesson's GELU (ops::gelu_forward) calls the C library's erff once a
// number: a call the compiler cannot vectorise, one of the largest costs of a
// served step after the products. Here erf is plain arithmetic: for
// |x| <= 0.928 an odd polynomial,
//   erf(x) = x + x * p(x^2),
// and above it 1 - exp(q(|x|)) with the sign of x, exp itself done by hand
// (2^k times a polynomial on [-ln2/2, ln2/2]). Both are worked out for every
// number and one is kept, so the loop has no branch (GCC vectorises that
// choice under -fno-trapping-math, set for this file in common/CMakeLists.txt).
// Within 2 units in the last place of std::erf over [-10, 10] (fast_test
// checks every 64th float there). No call and no table: a number's result is
// the same in the vector body and in the scalar tail, whatever the batch (the
// engine's rows stay batch-invariant).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "fast/fast.hpp"

namespace tang::fast {

namespace {

// exp(r) for r in [-17, 0]: r = k ln2 + f, |f| <= ln2/2, exp(f) by its Taylor
// series to f^7 (under 1e-8 relative), times 2^k built in the exponent bits.
inline float exp_of_negative(float r) {
  const float j = std::fma(r, 1.44269502f, 12582912.0f) - 12582912.0f;  // round(r / ln2)
  float f = std::fma(j, -6.93145752e-1f, r);  // ln2 in two parts (Cody and Waite)
  f = std::fma(j, -1.42860677e-6f, f);
  float p = 1.98412698e-4f;  // 1/5040
  p = std::fma(p, f, 1.38888889e-3f);
  p = std::fma(p, f, 8.33333333e-3f);
  p = std::fma(p, f, 4.16666667e-2f);
  p = std::fma(p, f, 1.66666667e-1f);
  p = std::fma(p, f, 0.5f);
  p = std::fma(p, f, 1.0f);
  p = std::fma(p, f, 1.0f);
  const std::int32_t bits = (static_cast<std::int32_t>(j) + 127) << 23;  // 2^j, j in [-25, 0]
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// erf(a): minimax polynomials after N. Juffa's erff (two ranges, about 1 ulp).
inline float erf_of(float a) {
  const float t = std::fabs(a), s = a * a;
  // |a| <= 0.927734375: a + a * p(a^2)
  float small = -5.96761703e-4f;
  small = std::fma(small, s, 4.99119423e-3f);
  small = std::fma(small, s, -2.67681349e-2f);
  small = std::fma(small, s, 1.12819925e-1f);
  small = std::fma(small, s, -3.76125336e-1f);
  small = std::fma(small, s, 1.28379166e-1f);
  small = std::fma(small, a, a);
  // above: 1 - exp(q(t)); past t = 4, erf is 1 in float, and q(4) = -16.3 keeps exp normal
  const float u = t < 4.0f ? t : 4.0f;
  const float us = u * u;
  float r = std::fma(-1.72853470e-5f, u, 3.83197126e-4f);
  const float v = std::fma(-3.88396438e-3f, u, 2.42546219e-2f);
  r = std::fma(r, us, v);
  r = std::fma(r, u, -1.06777877e-1f);
  r = std::fma(r, u, -6.34846687e-1f);
  r = std::fma(r, u, -1.28717512e-1f);
  r = std::fma(r, u, -u);
  const float large = std::copysign(1.0f - exp_of_negative(r), a);
  return t > 0.927734375f ? large : small;
}

}  // namespace

void vector_erf(float* out, const float* inp, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = erf_of(inp[i]);
}

void vector_gelu(float* out, const float* inp, std::size_t n) {
  const float inv_sqrt2 = 0.70710678118654752f;
  for (std::size_t i = 0; i < n; ++i) out[i] = 0.5f * inp[i] * (1.0f + erf_of(inp[i] * inv_sqrt2));
}

}  // namespace tang::fast
