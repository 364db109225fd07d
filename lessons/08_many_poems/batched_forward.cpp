// batched_forward.cpp: lesson 06's cached forward (kv_cache.cpp) for B poems,
// one new character each. Read it next to that file: the matrix products now
// take B rows (StoredMatrix::matmul, any weight format), and attention is
// exercise 08b's, per poem.
#include "08_many_poems/batched_forward.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "06_kvcache/exercise/attention_with_cache.hpp"  // exercise 06a: embed_with_offset
#include "08_many_poems/exercise/batched_attention.hpp"  // exercise 08b
#include "ops.hpp"

namespace tang {

// Activations hold windows of block_size rows: enough of them for max_batch rows.
BatchScratch::BatchScratch(const GPTConfig& config, std::size_t max_batch_)
    : acts(config,
           std::max<std::size_t>(1, (max_batch_ + config.block_size - 1) / config.block_size)),
      logits(Tensor<2>::from_shape({max_batch_, config.vocab_size})),
      max_batch(max_batch_) {
  if (max_batch_ == 0) throw std::invalid_argument("BatchScratch: max_batch must be at least 1");
}

View<2> forward_batch(const GPT& model, const StoredWeights& sw, std::span<const TokenId> tokens,
                      std::span<KVCache* const> caches, BatchScratch& s) {
  const GPTConfig& cfg = model.config();
  const GPTWeights& w = model.weights();
  const std::size_t B = tokens.size(), C = cfg.n_embd, NH = cfg.n_head, V = cfg.vocab_size;
  if (B == 0 || B > s.max_batch || caches.size() != B) {
    throw std::invalid_argument("forward_batch: 1 .. max_batch tokens, one cache each");
  }
  std::vector<std::size_t> lengths(B);  // (B) each poem's position
  for (std::size_t b = 0; b < B; ++b) {
    lengths[b] = caches[b]->length;
    if (lengths[b] >= cfg.block_size) throw std::invalid_argument("forward_batch: a cache is full");
    if (tokens[b] < 0 || static_cast<std::size_t>(tokens[b]) >= V)
      throw std::invalid_argument("forward_batch: token id out of range");
  }
  Activations& a = s.acts;
  for (std::size_t b = 0; b < B; ++b)  // row b: poem b's character at its own position
    embed_with_offset(a.encoded.data() + b * C, &tokens[b], 1, lengths[b], w.wte, w.wpe, C);
  std::vector<float*> k_rows(B), v_rows(B);  // (B) each poem's cache of the current layer
  const float* x = a.encoded.data();         // (B, C)
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = w.layers[l];
    const StoredWeights::Layer& sl = sw.layers[l];
    Activations::Layer& L = a.layers[l];
    ops::layernorm_forward(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), x, lw.ln1_w,
                           lw.ln1_b, B, C);
    sl.qkv.matmul(L.qkv.data(), L.ln1.data(), lw.qkv_b, B);  // (B, 3C): one gemm for all poems
    for (std::size_t b = 0; b < B; ++b) {
      k_rows[b] = &caches[b]->k(l, 0, 0);
      v_rows[b] = &caches[b]->v(l, 0, 0);
    }
    batched_attention(L.atty.data(), L.qkv.data(), k_rows.data(), v_rows.data(), lengths.data(), B,
                      C, NH);  // per poem: its own cache and length
    sl.attn_proj.matmul(L.residual2.data(), L.atty.data(), lw.attn_proj_b, B);
    ops::residual_forward(L.residual2.data(), x, L.residual2.data(), B * C);
    ops::layernorm_forward(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), L.residual2.data(),
                           lw.ln2_w, lw.ln2_b, B, C);
    sl.fc.matmul(L.fch.data(), L.ln2.data(), lw.fc_b, B);  // (B, 4C)
    ops::gelu_forward(L.fch_gelu.data(), L.fch.data(), B * 4 * C);
    sl.fc_proj.matmul(L.residual3.data(), L.fch_gelu.data(), lw.fc_proj_b, B);
    ops::residual_forward(L.residual3.data(), L.residual2.data(), L.residual3.data(), B * C);
    x = L.residual3.data();
  }
  for (KVCache* cache : caches) cache->length += 1;
  ops::layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), x, w.lnf_w, w.lnf_b, B,
                         C);
  sw.output.matmul(s.logits.data(), a.lnf.data(), nullptr, B);  // (B, V), the tied wte
  return view_of<2>(s.logits.data(), {B, V});
}

}  // namespace tang
