// SOLUTION to exercise 10b (the learner's file is exercise/latent_attention.cpp,
// whose comment specifies the behaviour).
//
// In PyTorch terms, per layer and head h (W_UK_h, W_UV_h: (HS, d_c)):
//   cache[start:start+T] = proj[:, C:]
//   a = q_h @ W_UK_h                                  # (d_c) the absorbed query
//   p = softmax(a @ cache[:n].T / sqrt(HS))           # (n)
//   out_h = (p @ cache[:n]) @ W_UV_h.T                # (HS)

#include "10_cache_size/exercise/latent_attention.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops.hpp"

namespace tang::reference {

void latent_attention_with_cache(float* out, const float* proj, float* cache, const float* kv_up,
                                 std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                 std::size_t latent) {
  const std::size_t HS = C / NH, dc = latent, P = C + dc;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));

  // 1. append the latents of the new positions start .. start+T-1
  for (std::size_t t = 0; t < T; ++t)
    std::copy(proj + t * P + C, proj + (t + 1) * P, cache + (start + t) * dc);

  std::vector<float> a(dc), mix(dc), p(start + T);  // (d_c), (d_c), (n)
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t n = start + t + 1;
    for (std::size_t h = 0; h < NH; ++h) {
      const float* q = proj + t * P + h * HS;         // (HS)
      const float* w_uk = kv_up + h * HS * dc;        // (HS, d_c)
      const float* w_uv = kv_up + (C + h * HS) * dc;  // (HS, d_c)
      // a. the absorbed query: a = W_UK_h^T q
      std::fill(a.begin(), a.end(), 0.0f);
      for (std::size_t i = 0; i < HS; ++i) {
        for (std::size_t d = 0; d < dc; ++d) a[d] += q[i] * w_uk[i * dc + d];
      }
      // b. scores over the cached latents, softmax
      for (std::size_t j = 0; j < n; ++j) p[j] = ops::dot(a.data(), cache + j * dc, dc) * scale;
      const float max = *std::max_element(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
      float sum = 0.0f;
      for (std::size_t j = 0; j < n; ++j) sum += p[j] = std::exp(p[j] - max);
      // c. the weighted latent
      std::fill(mix.begin(), mix.end(), 0.0f);
      for (std::size_t j = 0; j < n; ++j) {
        const float w = p[j] / sum;
        for (std::size_t d = 0; d < dc; ++d) mix[d] += w * cache[j * dc + d];
      }
      // d. the values' up-projection, once
      for (std::size_t i = 0; i < HS; ++i)
        out[t * C + h * HS + i] = ops::dot(w_uv + i * dc, mix.data(), dc);
    }
  }
}

}  // namespace tang::reference
