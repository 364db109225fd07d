// small_cache.hpp: lesson 10's cache, for every way of sharing keys and values.
//
// Lesson 06's KVCache keeps, per layer and position, a key and a value for every
// head: 2C floats. Lesson 10's models keep less (common/config.hpp, Attention):
//
//   multi-head     a key and a value per head          W = 2C
//   grouped-query  a key and a value per KVH head      W = 2 KVH HS   (multi-query: KVH = 1)
//   latent         one latent vector c                 W = d_c
//
// A layer's cache holds T_max x W floats. The grouped ones keep them head by head,
// (2, KVH, T_max, HS), as PyTorch's (batch, heads, positions, head size) caches
// are laid out: each head then reads its keys and values as one block, front to
// back, which the processor fetches ahead of the loop. Lesson 06 keeps them
// position by position; at a long context a head's pieces then lie a whole row
// apart. The latent cache keeps a row per position, (T_max, d_c), which every
// head reads whole.
//
// forward_with_cache below is lesson 06's forward_with_cache with the attention
// step swapped: every changed line is marked "// NEW". The grouped step is
// exercise 10a, the latent one in its absorbed form exercise 10b.
#pragma once

#include <span>
#include <stdexcept>
#include <vector>

#include "06_kvcache/kv_cache.hpp"                       // ModelMatrices, embed_with_offset
#include "10_cache_size/exercise/grouped_attention.hpp"  // exercise 10a
#include "10_cache_size/exercise/latent_attention.hpp"   // exercise 10b
#include "generate.hpp"
#include "gpt.hpp"
#include "ops.hpp"

namespace tang {

// Per layer, what attention needs of every position read so far.
struct SmallCache {
  explicit SmallCache(const GPTConfig& config);
  Tensor<2> layers;        // (L, T_max W), W = config.cache_width(): each layer's
                           // floats, laid out as its attention reads them (see above)
  std::size_t length = 0;  // positions held
  float* layer(std::size_t l) { return &layers(l, 0); }
};

// Bytes of cache one position costs: layers x W x 4 bytes.
std::size_t small_cache_bytes_per_position(const GPTConfig& config);

// tokens (B, T): T new characters for each of B texts, text b at positions
// caches[b]->length onwards: lesson 06's forward_with_cache with the caches of
// this lesson, every changed line marked "// NEW". Returns the logits (B*T, V),
// or with kLastPosition those of each text's last new character: (1, V) for
// one text, (B, V) for B texts of one character each. `m`: lesson 06's
// ModelMatrices (its qkv has config.proj_width() rows). Throws
// std::invalid_argument when a text does not fit its cache or the activations,
// or a token is out of range.
template <class Matrices>
View<2> forward_with_cache(const GPT& model, const Matrices& m, std::span<const TokenId> tokens,
                           std::span<SmallCache* const> caches,  // NEW: lesson 10's caches
                           Activations& a, LogitsFor which) {
  const GPTConfig& cfg = model.config();
  const GPTWeights& w = model.weights();
  const std::size_t B = caches.size(), N = tokens.size(), C = cfg.n_embd, V = cfg.vocab_size,
                    NH = cfg.n_head;
  const std::size_t P = cfg.proj_width();    // NEW: queries | what the cache keeps (3C for MHA)
  const std::size_t T = B == 0 ? 0 : N / B;  // new characters per text
  if (T == 0 || N != B * T) throw std::invalid_argument("forward_with_cache: no tokens");
  if (N > a.encoded.shape(0))
    throw std::invalid_argument("forward_with_cache: more rows than the activations hold");
  for (const SmallCache* cache : caches) {  // NEW: SmallCache
    if (cache->length + T > cfg.block_size)
      throw std::invalid_argument("forward_with_cache: text longer than the context");
  }
  for (TokenId id : tokens) {
    if (id < 0 || static_cast<std::size_t>(id) >= V)
      throw std::invalid_argument("forward_with_cache: token id out of range");
  }
  if (which == LogitsFor::kLastPosition && B > 1 && T > 1)
    throw std::invalid_argument("forward_with_cache: last logits of B texts: one character each");
  const std::size_t first = which == LogitsFor::kLastPosition && B == 1 ? T - 1 : 0;
  const std::size_t rows = N - first;  // the logits returned
  if (rows > a.logits.shape(0))
    throw std::invalid_argument(
        "forward_with_cache: no room for these logits (Keep::kEverything or step_activations)");

  // text b's new characters sit at positions start .. start+T-1, not 0 .. T-1,
  // where start = caches[b]->length, what its cache holds (it grows only at the end)
  for (std::size_t b = 0; b < B; ++b) {
    embed_with_offset(a.encoded.data() + b * T * C, tokens.data() + b * T, T, caches[b]->length,
                      w.wte, w.wpe, C);
  }
  const float* x = a.encoded.data();  // (N, C) the residual stream entering each block
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = w.layers[l];
    const auto& lm = m.layer(l);  // this layer's matrices, in the caller's format
    Activations::Layer& L = a.layers[l];
    // attention half: residual2 = x + proj(attention(ln_1(x)))
    ops::layernorm_forward(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), x, lw.ln1_w,
                           lw.ln1_b, N, C);
    float* proj = L.proj.size() > 0 ? L.proj.data() : L.qkv.data();  // NEW: (N, P)
    lm.qkv.matmul(proj, L.ln1.data(), lw.qkv_b, N);                  // NEW: P rows, not 3C
    // NEW: each text appends what its cache keeps of this layer, then each of
    // its new queries attends over every position so far, as the variant reads them
    for (std::size_t b = 0; b < B; ++b) {
      float* out = L.atty.data() + b * T * C;       // NEW
      const float* new_rows = proj + b * T * P;     // NEW: (T, P)
      float* cached = caches[b]->layer(l);          // NEW: this layer's T_max W floats
      if (cfg.attention() == Attention::kLatent) {  // NEW: exercise 10b
        latent_attention_with_cache(out, new_rows, cached, lw.kv_up_w,            // NEW
                                    caches[b]->length, T, C, NH, cfg.kv_latent);  // NEW
      } else {  // NEW: exercise 10a; multi-head attention is KVH = NH
        grouped_attention_with_cache(out, new_rows, cached, cfg.block_size,         // NEW
                                     caches[b]->length, T, C, NH, cfg.kv_heads());  // NEW
      }                                                                             // NEW
    }
    lm.attn_proj.matmul(L.residual2.data(), L.atty.data(), lw.attn_proj_b, N);
    ops::residual_forward(L.residual2.data(), x, L.residual2.data(), N * C);
    // MLP half: residual3 = residual2 + proj(gelu(fc(ln_2(residual2))))
    ops::layernorm_forward(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), L.residual2.data(),
                           lw.ln2_w, lw.ln2_b, N, C);
    lm.fc.matmul(L.fch.data(), L.ln2.data(), lw.fc_b, N);
    ops::gelu_forward(L.fch_gelu.data(), L.fch.data(), N * 4 * C);
    lm.fc_proj.matmul(L.residual3.data(), L.fch_gelu.data(), lw.fc_proj_b, N);
    ops::residual_forward(L.residual3.data(), L.residual2.data(), L.residual3.data(), N * C);
    x = L.residual3.data();
  }
  for (SmallCache* cache : caches) cache->length += T;  // NEW: SmallCache, T more positions

  // final LayerNorm, then the tied output layer: logits = ln_f(x) @ wte^T
  ops::layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), x, w.lnf_w, w.lnf_b, N,
                         C);
  m.output.matmul(a.logits.data(), a.lnf.data() + first * C, nullptr, rows);
  return view_of<2>(a.logits.data(), {rows, V});
}

// One text (B = 1), the model's own float32 matrices.
View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, SmallCache& cache,
                           Activations& acts, LogitsFor which = LogitsFor::kLastPosition);

// A Predictor over the small cache: lesson 06's CachedPredictor for every variant
// (the window slides past the context by rebuilding the cache, as there).
using SmallCachePredictor = CachedPredictor<ModelMatrices<>, SmallCache>;

}  // namespace tang
