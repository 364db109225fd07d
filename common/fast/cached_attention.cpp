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

// w[j] = key_j . q for n keys at keys + j * stride, HS channels (HS % 8 == 0).
void scores(float* w, const float* q, const float* keys, std::size_t stride, std::size_t n,
            std::size_t HS) {
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {  // four keys at a time, their lanes added together at the end
    Eight sums[4] = {};
    for (std::size_t i = 0; i < HS; i += 8) {
      const Eight qi = load8(q + i);
      for (std::size_t r = 0; r < 4; ++r) sums[r] += load8(keys + (j + r) * stride + i) * qi;
    }
    add_lanes4(w + j, sums);
  }
  for (; j < n; ++j) w[j] = ops::dot(keys + j * stride, q, HS);
}

}  // namespace

void attend(float* out, float* weights, const float* q, const float* keys, const float* values,
            std::size_t stride, std::size_t n, std::size_t C, std::size_t NH) {
  const std::size_t HS = C / NH;
  if (HS % 8 != 0) return ops::attend(out, weights, q, keys, values, stride, n, C, NH);
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  for (std::size_t h = 0; h < NH; ++h) {
    float* w = weights + h * n;  // (n)
    scores(w, q + h * HS, keys + h * HS, stride, n, HS);
    for (std::size_t j = 0; j < n; ++j) w[j] *= scale;
    const float sum = exp_minus_max_and_sum(w, w, n, max_of(w, n));
    for (std::size_t j = 0; j < n; ++j) w[j] /= sum;
    const float* vh = values + h * HS;
    for (std::size_t i = 0; i < HS; i += 8) {  // out = sum_j w_j v_j, 8 channels at a time
      Eight acc = {};
      for (std::size_t j = 0; j < n; ++j) acc += w[j] * load8(vh + j * stride + i);
      std::memcpy(out + h * HS + i, &acc, sizeof acc);
    }
  }
}

}  // namespace tang::fast
