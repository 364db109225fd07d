// The forward halves of ops.hpp: what every lesson runs, in plain loops.
#include "ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace tang::ops {

// The eight lanes of dot() (ops.hpp) side by side in one register, a GCC vector type.
using Lanes = float __attribute__((vector_size(32)));
using HalfLanes = float __attribute__((vector_size(16)));
constexpr std::size_t kLanes = sizeof(Lanes) / sizeof(float);

// The sanitizer build skips dot() and dot4() (ten times slower lessons); it checks their callers.
#define TANG_NOT_SANITIZED __attribute__((no_sanitize("address", "undefined")))

static TANG_NOT_SANITIZED Lanes load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The terms after the last full eight (none in the course model), kept out of line for speed.
[[gnu::noinline]] static TANG_NOT_SANITIZED Lanes add_tail(Lanes v, const float* a, const float* b,
                                                           std::size_t i, std::size_t n) {
  for (std::size_t k = 0; i + k < n; ++k) v[k] += a[i + k] * b[i + k];
  return v;
}

// The end of one sum: the tail, then the lanes pairwise in the register (k + k+4, k + k+2, 0 + 1).
static TANG_NOT_SANITIZED float finish_dot(Lanes v, const float* a, const float* b, std::size_t i,
                                           std::size_t n) {
  if (i < n) v = add_tail(v, a, b, i, n);
  const HalfLanes four = HalfLanes{v[0], v[1], v[2], v[3]} + HalfLanes{v[4], v[5], v[6], v[7]};
  return (four[0] + four[2]) + (four[1] + four[3]);  // 4 -> 2 -> 1
}

TANG_NOT_SANITIZED float dot(const float* a, const float* b, std::size_t n) {
  Lanes lanes = {};  // +0 in every lane
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) lanes += load(a + i) * load(b + i);
  return finish_dot(lanes, a, b, i, n);
}

// out[r] = row_r . x (+ bias[r]) for the four rows at rows + r * stride, each summed as dot()
// sums it; meanwhile it asks for the next four rows (a prefetch: the weights arrive sooner).
static TANG_NOT_SANITIZED void dot4(float* out, const float* rows, std::size_t stride,
                                    const float* x, std::size_t n, const float* bias = nullptr) {
  const float *row0 = rows, *row1 = rows + stride, *row2 = rows + 2 * stride,
              *row3 = rows + 3 * stride, *next = rows + 4 * stride;
  Lanes lanes0 = {}, lanes1 = {}, lanes2 = {}, lanes3 = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::size_t r = 0; r < 4; ++r) __builtin_prefetch(next + r * stride + i);
    const Lanes xi = load(x + i);
    lanes0 += load(row0 + i) * xi;
    lanes1 += load(row1 + i) * xi;
    lanes2 += load(row2 + i) * xi;
    lanes3 += load(row3 + i) * xi;
  }
  const float sums[4] = {finish_dot(lanes0, row0, x, i, n), finish_dot(lanes1, row1, x, i, n),
                         finish_dot(lanes2, row2, x, i, n), finish_dot(lanes3, row3, x, i, n)};
  for (std::size_t r = 0; r < 4; ++r) out[r] = bias ? sums[r] + bias[r] : sums[r];
}

void encoder_forward(float* out, const TokenId* tokens, const float* wte, const float* wpe,
                     std::size_t B, std::size_t T, std::size_t C, std::size_t position_start) {
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t t = 0; t < T; ++t) {
      float* o = out + (b * T + t) * C;
      const float* token_vector = wte + static_cast<std::size_t>(tokens[b * T + t]) * C;
      const float* position_vector = wpe + (position_start + t) * C;
      for (std::size_t i = 0; i < C; ++i) o[i] = token_vector[i] + position_vector[i];
    }
  }
}

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::size_t N, std::size_t C) {
  constexpr float eps = 1e-5f;
  for (std::size_t n = 0; n < N; ++n) {
    const float* x = inp + n * C;
    float m = 0.0f;
    for (std::size_t i = 0; i < C; ++i) m += x[i];
    m /= static_cast<float>(C);
    float variance = 0.0f;
    for (std::size_t i = 0; i < C; ++i) variance += (x[i] - m) * (x[i] - m);
    variance /= static_cast<float>(C);
    const float s = 1.0f / std::sqrt(variance + eps);
    float* o = out + n * C;
    for (std::size_t i = 0; i < C; ++i) o[i] = (x[i] - m) * s * weight[i] + bias[i];
    if (mean) mean[n] = m;
    if (rstd) rstd[n] = s;
  }
}

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                    std::size_t N, std::size_t IC, std::size_t OC) {
  // out[n][o] = w_o . x_n + b_o, four rows of w at a time, used for every n while cached
  std::size_t o = 0;
  for (; o + 4 <= OC; o += 4) {
    for (std::size_t n = 0; n < N; ++n)
      dot4(out + n * OC + o, weight + o * IC, IC, inp + n * IC, IC, bias ? bias + o : nullptr);
  }
  for (; o < OC; ++o) {  // the last OC % 4 rows, one at a time
    for (std::size_t n = 0; n < N; ++n) {
      const float sum = dot(weight + o * IC, inp + n * IC, IC);
      out[n * OC + o] = bias ? sum + bias[o] : sum;
    }
  }
}

namespace {

// w (n) = softmax(w * scale), minus the largest score first, so exp cannot overflow.
void scaled_softmax(float* w, std::size_t n, float scale) {
  for (std::size_t j = 0; j < n; ++j) w[j] *= scale;
  const float max = *std::max_element(w, w + n);
  float sum = 0.0f;
  for (std::size_t j = 0; j < n; ++j) {
    w[j] = std::exp(w[j] - max);
    sum += w[j];
  }
  for (std::size_t j = 0; j < n; ++j) w[j] /= sum;
}

// o (HS) = sum_j w_j v_j, where v_j starts at value_of(j): adding in order
// j = 0, 1, ..., eight outputs at a time in a register.
template <class ValueOf>
void weighted_sum(float* o, const float* w, ValueOf value_of, std::size_t n, std::size_t HS) {
  std::size_t i = 0;
  for (; i + kLanes <= HS; i += kLanes) {
    Lanes sum = {};
    for (std::size_t j = 0; j < n; ++j) sum += w[j] * load(value_of(j) + i);
    for (std::size_t k = 0; k < kLanes; ++k) o[i + k] = sum[k];
  }
  for (; i < HS; ++i) {  // the rest, if HS is not a multiple of 8
    float sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) sum += w[j] * value_of(j)[i];
    o[i] = sum;
  }
}

}  // namespace

void attend(float* out, float* weights, const float* q, const float* keys, const float* values,
            std::size_t stride, std::size_t n, std::size_t C, std::size_t NH) {
  const std::size_t HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  for (std::size_t h = 0; h < NH; ++h) {
    float* w = weights + h * n;       // (n)
    const float* qh = q + h * HS;     // (HS)
    const float* kh = keys + h * HS;  // key j of this head at kh + j * stride
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4)  // q . k_j for four keys at a time
      dot4(w + j, kh + j * stride, stride, qh, HS);
    for (; j < n; ++j) w[j] = dot(kh + j * stride, qh, HS);
    scaled_softmax(w, n, scale);
    const float* vh = values + h * HS;  // value j of this head at vh + j * stride
    weighted_sum(
        out + h * HS, w, [&](std::size_t j) { return vh + j * stride; }, n, HS);
  }
}

void attend_rows(float* out, float* weights, const float* q, const float* keys, const float* values,
                 const std::size_t* rows, std::size_t n, std::size_t C, std::size_t NH) {
  const std::size_t HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  for (std::size_t h = 0; h < NH; ++h) {
    float* w = weights + h * n;  // (n)
    const float* qh = q + h * HS;
    for (std::size_t j = 0; j < n; ++j) w[j] = dot(keys + rows[j] * C + h * HS, qh, HS);
    scaled_softmax(w, n, scale);
    const float* vh = values + h * HS;
    weighted_sum(
        out + h * HS, w, [&](std::size_t j) { return vh + rows[j] * C; }, n, HS);
  }
}

void attention_forward(float* out, float* att, const float* qkv, std::size_t B, std::size_t T,
                       std::size_t C, std::size_t NH) {
  std::vector<float> weights(NH * T);  // (NH, t+1) for the position at hand
  for (std::size_t b = 0; b < B; ++b) {
    const float* seq = qkv + b * T * 3 * C;  // (T, 3C)
    for (std::size_t t = 0; t < T; ++t) {
      // the causal mask: position t sees positions 0 .. t, so n = t + 1
      const std::size_t n = t + 1;
      attend(out + (b * T + t) * C, weights.data(), seq + t * 3 * C, seq + C, seq + 2 * C, 3 * C, n,
             C, NH);
      for (std::size_t h = 0; att != nullptr && h < NH; ++h) {
        float* row = att + ((b * NH + h) * T + t) * T;  // (T)
        std::copy(weights.begin() + h * n, weights.begin() + (h + 1) * n, row);
        std::fill(row + n, row + T, 0.0f);
      }
    }
  }
}

void gelu_forward(float* out, const float* inp, std::size_t n) {
  const float inv_sqrt2 = 0.70710678118654752f;
  // erf alone first: the second loop then has no call, and runs eight values at a time
  for (std::size_t i = 0; i < n; ++i) out[i] = std::erf(inp[i] * inv_sqrt2);
  for (std::size_t i = 0; i < n; ++i) out[i] = 0.5f * inp[i] * (1.0f + out[i]);
}

void residual_forward(float* out, const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

}  // namespace tang::ops
