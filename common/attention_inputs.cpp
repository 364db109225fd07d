#include "attention_inputs.hpp"

#include <algorithm>

namespace tang {

void attention_inputs_forward(const GPTConfig& cfg, const LayerWeights& w, Activations::Layer& L,
                              std::size_t N, const Kernels& k) {
  const std::size_t C = cfg.n_embd, P = cfg.proj_width();
  if (cfg.attention() == Attention::kMultiHead) {
    k.matmul(L.qkv.data(), L.ln1.data(), w.qkv_w, w.qkv_b, N, C, 3 * C);  // (N, 3C)
    return;
  }
  k.matmul(L.proj.data(), L.ln1.data(), w.qkv_w, w.qkv_b, N, C, P);  // (N, P)
  for (std::size_t n = 0; n < N; ++n) {  // the queries are the same in every variant
    const float* q = L.proj.data() + n * P;
    std::copy(q, q + C, L.qkv.data() + n * 3 * C);
  }
  if (cfg.attention() == Attention::kGroupedQuery) {
    const std::size_t HS = cfg.head_size(), NH = cfg.n_head, KVH = cfg.kv_heads();
    const std::size_t group = NH / KVH;  // query heads per key/value head
    for (std::size_t n = 0; n < N; ++n) {
      const float* keys = L.proj.data() + n * P + C;  // (KVH, HS), then the values (KVH, HS)
      const float* values = keys + KVH * HS;
      float* row = L.qkv.data() + n * 3 * C;
      for (std::size_t h = 0; h < NH; ++h) {
        const std::size_t g = h / group;  // the key/value head query head h reads
        std::copy(keys + g * HS, keys + (g + 1) * HS, row + C + h * HS);
        std::copy(values + g * HS, values + (g + 1) * HS, row + 2 * C + h * HS);
      }
    }
    return;
  }
  // latent: c (N, d_c), then keys and values kv (N, 2C) = c @ kv_up_w^T
  const std::size_t dc = cfg.kv_latent;
  for (std::size_t n = 0; n < N; ++n) {
    const float* c = L.proj.data() + n * P + C;
    std::copy(c, c + dc, L.latent.data() + n * dc);
  }
  k.matmul(L.kv.data(), L.latent.data(), w.kv_up_w, nullptr, N, dc, 2 * C);
  for (std::size_t n = 0; n < N; ++n) {
    const float* kv = L.kv.data() + n * 2 * C;
    std::copy(kv, kv + 2 * C, L.qkv.data() + n * 3 * C + C);
  }
}

}  // namespace tang
