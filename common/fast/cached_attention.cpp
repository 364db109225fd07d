// cached_attention.cpp (under the hood): one query against the n keys of a cache,
// as ops::attend, for a decoding step's attention.
//
// ops::attend spends most of a short step's attention in its softmax: one
// scalar expf per key and head (1,024 of them a step of our model at 64
// positions). Here the softmax takes glibc's vector exp (vector_math.hpp), and
// the scores and the weighted sum use fused multiply-adds, 8 channels at a
// time. Other last bits than ops::attend (fast_test compares them).
#include <cmath>
#include <cstring>

#include "fast/fast.hpp"
#include "fast/lanes.hpp"  // Eight, add_lanes4
#include "fast/vector_math.hpp"
#include "ops.hpp"

namespace tang::fast {

namespace {

Eight load8(const float* p) {
  Eight v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// weights (NH, n): w[h][j] = key_j . q in head h's HS channels (HS % 8 == 0),
// four keys at a time, their lanes added together at the end; each block of
// four key rows is read once for every head, in order, as memory lies.
void scores(float* weights, const float* q, const float* keys, std::size_t stride, std::size_t n,
            std::size_t HS, std::size_t NH) {
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    for (std::size_t h = 0; h < NH; ++h) {
      const float* k = keys + j * stride + h * HS;
      Eight sums[4] = {};
      for (std::size_t i = 0; i < HS; i += 8) {
        const Eight qi = load8(q + h * HS + i);
        for (std::size_t r = 0; r < 4; ++r) sums[r] += load8(k + r * stride + i) * qi;
      }
      add_lanes4(weights + h * n + j, sums);
    }
  }
  for (; j < n; ++j)
    for (std::size_t h = 0; h < NH; ++h)
      weights[h * n + j] = ops::dot(keys + j * stride + h * HS, q + h * HS, HS);
}

// out (HS) = sum_j w_j v_j for n values at values + j * stride: row by row, each
// row's HS channels read once, in order (as memory lies), into HS / 8 sums kept
// in registers, rather than 8 channels at a time down all the rows.
template <std::size_t HS>
void weighted_sum(float* out, const float* w, const float* values, std::size_t stride,
                  std::size_t n) {
  Eight acc[HS / 8] = {};
  for (std::size_t j = 0; j < n; ++j) {
    const float* v = values + j * stride;
    for (std::size_t k = 0; k < HS / 8; ++k) acc[k] += w[j] * load8(v + 8 * k);
  }
  std::memcpy(out, acc, sizeof acc);
}

void weighted_sum(float* out, const float* w, const float* values, std::size_t stride,
                  std::size_t n, std::size_t HS) {
  if (HS == 32) return weighted_sum<32>(out, w, values, stride, n);
  if (HS == 64) return weighted_sum<64>(out, w, values, stride, n);
  if (HS == 128) return weighted_sum<128>(out, w, values, stride, n);
  for (std::size_t i = 0; i < HS; i += 8) {  // 8 channels at a time, down the rows
    Eight acc = {};
    for (std::size_t j = 0; j < n; ++j) acc += w[j] * load8(values + j * stride + i);
    std::memcpy(out + i, &acc, sizeof acc);
  }
}

}  // namespace

void attend(float* out, float* weights, const float* q, const float* keys, const float* values,
            std::size_t stride, std::size_t n, std::size_t C, std::size_t NH) {
  const std::size_t HS = C / NH;
  if (HS % 8 != 0) return ops::attend(out, weights, q, keys, values, stride, n, C, NH);
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  scores(weights, q, keys, stride, n, HS, NH);  // (NH, n)
  for (std::size_t i = 0; i < NH * n; ++i) weights[i] *= scale;
  for (std::size_t h = 0; h < NH; ++h) {
    float* w = weights + h * n;  // (n)
    const float inverse = 1.0f / exp_minus_max_and_sum(w, w, n, max_of(w, n));
    for (std::size_t j = 0; j < n; ++j) w[j] *= inverse;  // one division, then multiplications
    weighted_sum(out + h * HS, w, values + h * HS, stride, n, HS);
  }
}

}  // namespace tang::fast
