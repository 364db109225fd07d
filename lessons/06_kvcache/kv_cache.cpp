// kv_cache.cpp: common/gpt.cpp's forward, with the KV cache added.
// Read it next to that file: the lines marked NEW are all the difference.
#include "06_kvcache/kv_cache.hpp"

#include <algorithm>
#include <stdexcept>

#include "06_kvcache/exercise/attention_with_cache.hpp"  // NEW: exercise 06a
#include "ops.hpp"

namespace tang {

KVCache::KVCache(const GPTConfig& config)
    : k(Tensor<3>::from_shape({config.n_layer, config.block_size, config.n_embd})),
      v(Tensor<3>::from_shape({config.n_layer, config.block_size, config.n_embd})) {}

std::size_t kv_cache_bytes_per_position(const GPTConfig& config) {
  return 2 * config.n_layer * config.n_embd * sizeof(float);
}

View<2> forward_with_cache(const GPTConfig& cfg, const GPTWeights& w,
                           std::span<const TokenId> tokens, std::size_t start,  // NEW: start
                           KVCache& cache,                                      // NEW: the cache
                           Activations& a, const Kernels& k, LogitsFor which) {
  const std::size_t T = tokens.size(), N = T, C = cfg.n_embd, V = cfg.vocab_size, NH = cfg.n_head;
  if (T == 0) throw std::invalid_argument("forward_with_cache: no tokens");
  if (start != cache.length)                                                           // NEW
    throw std::invalid_argument("forward_with_cache: start must equal cache.length");  // NEW
  if (start + T > cfg.block_size)                                                      // NEW
    throw std::invalid_argument("forward_with_cache: text longer than the context");
  for (TokenId id : tokens) {
    if (id < 0 || static_cast<std::size_t>(id) >= V)
      throw std::invalid_argument("forward_with_cache: token id out of range");
  }
  if (which == LogitsFor::kAllPositions && a.logits.shape(0) < N)
    throw std::invalid_argument("forward_with_cache: all positions' logits need Keep::kEverything");

  // NEW: the new characters sit at positions start .. start+T-1, not 0 .. T-1
  embed_with_offset(a.encoded.data(), tokens.data(), T, start, w.wte, w.wpe, C);
  const float* x = a.encoded.data();  // (N, C) the residual stream entering each block
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = w.layers[l];
    Activations::Layer& L = a.layers[l];
    // attention half: residual2 = x + proj(attention(ln_1(x)))
    k.layernorm(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), x, lw.ln1_w, lw.ln1_b, N, C);
    k.matmul(L.qkv.data(), L.ln1.data(), lw.qkv_w, lw.qkv_b, N, C, 3 * C);
    // NEW: append this layer's new keys and values to the cache, then let each
    // new query attend over every position so far (exercise 06a)
    attention_with_cache(L.atty.data(), L.qkv.data(), &cache.k(l, 0, 0), &cache.v(l, 0, 0), start,
                         T, C, NH);
    k.matmul(L.residual2.data(), L.atty.data(), lw.attn_proj_w, lw.attn_proj_b, N, C, C);
    ops::residual_forward(L.residual2.data(), x, L.residual2.data(), N * C);
    // MLP half: residual3 = residual2 + proj(gelu(fc(ln_2(residual2))))
    k.layernorm(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), L.residual2.data(), lw.ln2_w,
                lw.ln2_b, N, C);
    k.matmul(L.fch.data(), L.ln2.data(), lw.fc_w, lw.fc_b, N, C, 4 * C);
    k.gelu(L.fch_gelu.data(), L.fch.data(), N * 4 * C);
    k.matmul(L.residual3.data(), L.fch_gelu.data(), lw.fc_proj_w, lw.fc_proj_b, N, 4 * C, C);
    ops::residual_forward(L.residual3.data(), L.residual2.data(), L.residual3.data(), N * C);
    x = L.residual3.data();
  }
  cache.length = start + T;  // NEW: the cache now holds positions 0 .. start+T-1

  // final LayerNorm, then the tied output layer: logits = ln_f(x) @ wte^T
  const std::size_t first = which == LogitsFor::kLastPosition ? T - 1 : 0;
  const std::size_t rows = N - first;
  k.layernorm(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), x, w.lnf_w, w.lnf_b, N, C);
  k.matmul(a.logits.data(), a.lnf.data() + first * C, w.wte, nullptr, rows, C, V);
  return view_of<2>(a.logits.data(), {rows, V});
}

View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, std::size_t start,
                           KVCache& cache, Activations& acts, LogitsFor which) {
  return forward_with_cache(model.config(), model.weights(), tokens, start, cache, acts,
                            kPlainKernels, which);
}

CachedPredictor::CachedPredictor(const GPT& model, const Kernels& kernels)
    : model_(model), kernels_(kernels), cache_(model.config()), acts_(model.config()) {
  seen_.reserve(model.config().block_size);
}

std::span<const float> CachedPredictor::next_logits(std::span<const TokenId> context) {
  if (context.empty()) throw std::invalid_argument("next_logits: empty context");
  const std::span<const TokenId> window = crop_to_context(context, model_.config().block_size);
  // Reuse the cache only if it holds a prefix of this very window.
  const bool cache_is_prefix =
      seen_.size() < window.size() && std::equal(seen_.begin(), seen_.end(), window.begin());
  if (!cache_is_prefix) cache_.length = 0, seen_.clear();
  const std::size_t start = cache_.length;
  const auto logits = forward_with_cache(model_.config(), model_.weights(), window.subspan(start),
                                         start, cache_, acts_, kernels_, LogitsFor::kLastPosition);
  seen_.assign(window.begin(), window.end());
  return require_finite({logits.data(), logits.size()});
}

}  // namespace tang
