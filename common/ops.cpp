// The forward halves of ops.hpp: what every lesson runs, in plain loops.
#include "ops.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tang::ops {

// Not instrumented by the sanitizers (AddressSanitizer, UndefinedBehavior-
// Sanitizer's checks on every pointer step): it reads exactly a[0..n) and
// b[0..n), and nearly all the time of a forward pass is spent here. Its callers'
// buffers are still checked in the sanitizer build, where the lessons would
// otherwise run ten times slower.
#if defined(__GNUC__)
__attribute__((no_sanitize("address", "undefined")))
#endif
float dot(const float* a, const float* b, std::size_t n) {
  constexpr std::size_t kLanes = 8;
  float lane[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::size_t k = 0; k < kLanes; ++k) lane[k] += a[i + k] * b[i + k];
  }
  for (std::size_t k = 0; k < kLanes && i + k < n; ++k) lane[k] += a[i + k] * b[i + k];  // the rest
  // pairwise: 8 -> 4 -> 2 -> 1
  for (std::size_t width = kLanes / 2; width > 0; width /= 2) {
    for (std::size_t k = 0; k < width; ++k) lane[k] += lane[k + width];
  }
  return lane[0];
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
  // out[n][o] = w_o . x_n + b_o. Weight row o is read from memory once and
  // then used for every position n while it sits in the cache.
  for (std::size_t o = 0; o < OC; ++o) {
    const float* w = weight + o * IC;  // (IC)
    const float b = bias ? bias[o] : 0.0f;
    for (std::size_t n = 0; n < N; ++n) out[n * OC + o] = dot(w, inp + n * IC, IC) + b;
  }
}

void attend(float* out, float* weights, const float* q, const float* keys, const float* values,
            std::size_t stride, std::size_t n, std::size_t C, std::size_t NH) {
  const std::size_t HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  for (std::size_t h = 0; h < NH; ++h) {
    float* w = weights + h * n;  // (n)
    // scores, then softmax (minus the largest score first, so exp cannot overflow)
    for (std::size_t j = 0; j < n; ++j)
      w[j] = dot(q + h * HS, keys + j * stride + h * HS, HS) * scale;
    const float max = *std::max_element(w, w + n);
    float sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) {
      w[j] = std::exp(w[j] - max);
      sum += w[j];
    }
    for (std::size_t j = 0; j < n; ++j) w[j] /= sum;
    // out_h = sum_j w_j v_j, position by position (each output adds in order j = 0, 1, ...)
    float* o = out + h * HS;  // (HS)
    std::fill(o, o + HS, 0.0f);
    for (std::size_t j = 0; j < n; ++j) {
      const float* v = values + j * stride + h * HS;
      for (std::size_t i = 0; i < HS; ++i) o[i] += w[j] * v[i];
    }
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
  for (std::size_t i = 0; i < n; ++i)
    out[i] = 0.5f * inp[i] * (1.0f + std::erf(inp[i] * inv_sqrt2));
}

void residual_forward(float* out, const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

float crossentropy_forward(float* losses, float* probs, const float* logits, const TokenId* targets,
                           std::size_t N, std::size_t V) {
  double total = 0.0;
  for (std::size_t n = 0; n < N; ++n) {
    const float* z = logits + n * V;
    float* p = probs + n * V;
    const float max = *std::max_element(z, z + V);
    const float target_logit = z[static_cast<std::size_t>(targets[n])];  // before p overwrites z
    float sum = 0.0f;
    for (std::size_t i = 0; i < V; ++i) {
      p[i] = std::exp(z[i] - max);
      sum += p[i];
    }
    for (std::size_t i = 0; i < V; ++i) p[i] /= sum;
    // -log p[target] = log(sum) - (z[target] - max), without taking the log of a tiny p
    losses[n] = std::log(sum) - (target_logit - max);
    total += losses[n];
  }
  return static_cast<float>(total / static_cast<double>(N));
}

}  // namespace tang::ops
