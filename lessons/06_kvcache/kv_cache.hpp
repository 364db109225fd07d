// kv_cache.hpp: lesson 06's addition to the model, the KV cache.
//
// Without a cache (common/gpt.hpp), writing character n runs all n-1
// characters before it through the model again, although their keys and
// values in every layer are exactly what they were one step earlier: a
// position only ever looks at itself and the positions before it (the causal
// mask). The cache keeps them. A step then feeds only the new characters:
//
//   forward_with_cache(model, tokens, start, cache, acts)
//
//   tokens  the T new characters, at absolute positions start .. start+T-1
//           (T = the prompt's length for the first step, the "prefill", then 1)
//   cache   keys and values of positions 0 .. start-1 (cache.length == start);
//           each layer appends those of the new positions
//
// That call runs the one cached forward below, forward_with_cache(model,
// matrices, tokens, caches, acts): common/gpt.cpp's forward with the cache
// added, every changed line marked "// NEW". It takes B texts, each with its own
// cache, so that lesson 08 writes many poems in one step with this same code,
// and its weight matrices as a parameter (the model's own float32 here; lesson
// 08's bf16 and int8). The cache is a parameter too: all the forward asks of
// it is in four members (KVCache below), and lesson 10's caches that share
// keys and values and lesson 11's cache in blocks answer them in their own
// way, through this same forward. KVCache's attention step is exercise 06a.
#pragma once

#include <algorithm>
#include <iterator>
#include <span>
#include <stdexcept>
#include <vector>

#include "06_kvcache/exercise/attention_with_cache.hpp"  // exercise 06a
#include "generate.hpp"
#include "gpt.hpp"
#include "ops.hpp"

namespace tang {

// Throws std::invalid_argument unless `held` + T positions fit in the context.
void check_context(std::size_t held, std::size_t T, const GPTConfig& config);

// Per layer, the key and value vector of every position read so far.
//
// A cache, for forward_with_cache below, is any type with the four members
// this one has after its data: lesson 10's SmallCache and lesson 11's
// PagedCache are caches too.
struct KVCache {
  explicit KVCache(const GPTConfig& config);
  Tensor<3> k;             // (L, T_max, C)
  Tensor<3> v;             // (L, T_max, C)
  std::size_t length = 0;  // positions held

  // The positions it holds: the new characters start at this one.
  std::size_t positions() const { return length; }
  // Throws std::invalid_argument unless T more positions fit.
  void check_room(std::size_t T, const GPTConfig& config) const {
    check_context(length, T, config);
  }
  // Layer l of one text: appends the keys and values of its T new positions,
  // then each new query attends over every position so far (exercise 06a).
  // rows (T, 3C): queries | keys | values of the new positions; out (T, C).
  void attend(std::size_t l, float* out, const float* rows, std::size_t T, const GPT& model);
  // After the last layer: it holds the new characters too.
  void hold(std::span<const TokenId> tokens) { length += tokens.size(); }
};

// Bytes of cache one position costs: 2 (k and v) x layers x dims x 4 bytes.
std::size_t kv_cache_bytes_per_position(const GPTConfig& config);

// One weight matrix W (rows x cols, a row per output), multiplied as every
// lesson before does: out (N, rows) = inp (N, cols) @ W^T + bias.
struct Fp32Matrix {
  const float* weight;
  std::size_t rows, cols;
  void matmul(float* out, const float* inp, const float* bias, std::size_t N) const {
    ops::matmul_forward(out, inp, weight, bias, N, cols, rows);
  }
};

// The matrices a step multiplies by: a view of the model's own floats, used in
// place (making one copies nothing). Lesson 08's StoredWeights has the same
// shape (layer(l).qkv ..., output) and stores them in bf16 or int8; the
// benchmarks pass a tuned Matrix (BLAS).
template <class Matrix = Fp32Matrix>
struct ModelMatrices {
  explicit ModelMatrices(const GPT& model)
      : output{model.weights().wte, model.config().vocab_size, model.config().n_embd},
        model_(&model) {}
  struct Layer {
    Matrix qkv, attn_proj, fc, fc_proj;
  };
  Layer layer(std::size_t l) const {
    const std::size_t C = model_->config().n_embd;
    const LayerWeights& w = model_->weights().layers[l];
    const std::size_t P = model_->config().proj_width();  // 3C; lesson 10's variants: less
    return {Matrix{w.qkv_w, P, C}, Matrix{w.attn_proj_w, C, C}, Matrix{w.fc_w, 4 * C, C},
            Matrix{w.fc_proj_w, C, 4 * C}};
  }
  Matrix output;  // the tied output layer: wte (V, C)

 private:
  const GPT* model_;
};

// GELU over n numbers: the matrices' own, when they bring one (the benchmarks'
// tuned step: glibc's vector erf), else the lesson's loop, ops::gelu_forward.
template <class Matrices>
void step_gelu(const Matrices& m, float* out, const float* inp, std::size_t n) {
  if constexpr (requires { m.gelu(out, inp, n); })
    m.gelu(out, inp, n);
  else
    ops::gelu_forward(out, inp, n);
}

// Activations for a cached step of up to `rows` new positions in all (B texts
// x T characters each), with room for every row's logits.
Activations step_activations(const GPTConfig& config, std::size_t rows);

// tokens (B, T): T new characters for each of B texts, text b at positions
// caches[b]->positions() onwards. `caches`: B pointers (an array, a vector or a
// span), each to a cache of the kind above. Returns the logits (B*T, V), or with
// kLastPosition those of each text's last new character: (1, V) for one text,
// (B, V) for B texts of one character each. Throws std::invalid_argument when
// a text does not fit its cache or the activations, or a token is out of range.
template <class Matrices, class Caches>
View<2> forward_with_cache(const GPT& model, const Matrices& m, std::span<const TokenId> tokens,
                           const Caches& caches,  // NEW: B caches, one per text
                           Activations& a, LogitsFor which) {
  const GPTConfig& cfg = model.config();
  const GPTWeights& w = model.weights();
  const std::size_t B = std::size(caches), N = tokens.size(), C = cfg.n_embd, V = cfg.vocab_size;
  const std::size_t P = cfg.proj_width();    // NEW: the projection's width, 3C (lesson 10: less)
  const std::size_t T = B == 0 ? 0 : N / B;  // new characters per text
  if (T == 0 || N != B * T) throw std::invalid_argument("forward_with_cache: no tokens");
  if (N > a.encoded.shape(0))
    throw std::invalid_argument("forward_with_cache: more rows than the activations hold");
  for (std::size_t b = 0; b < B; ++b) caches[b]->check_room(T, cfg);  // NEW
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

  // NEW: text b's new characters sit at positions start .. start+T-1, not 0 .. T-1,
  // where start = caches[b]->positions(), what its cache holds (it grows only at the end)
  for (std::size_t b = 0; b < B; ++b) {
    embed_with_offset(a.encoded.data() + b * T * C, tokens.data() + b * T, T,
                      caches[b]->positions(), w.wte, w.wpe, C);
  }
  const float* x = a.encoded.data();  // (N, C) the residual stream entering each block
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = w.layers[l];
    const auto& lm = m.layer(l);  // NEW: this layer's matrices, in the caller's format
    Activations::Layer& L = a.layers[l];
    // attention half: residual2 = x + proj(attention(ln_1(x)))
    ops::layernorm_forward(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), x, lw.ln1_w,
                           lw.ln1_b, N, C);
    lm.qkv.matmul(L.qkv.data(), L.ln1.data(), lw.qkv_b, N);  // NEW: (N, P)
    // NEW: each text's cache keeps what it needs of this layer's new rows, then
    // each of its new queries attends over every position so far
    for (std::size_t b = 0; b < B; ++b) {
      caches[b]->attend(l, L.atty.data() + b * T * C, L.qkv.data() + b * T * P, T, model);
    }
    lm.attn_proj.matmul(L.residual2.data(), L.atty.data(), lw.attn_proj_b, N);
    ops::residual_forward(L.residual2.data(), x, L.residual2.data(), N * C);
    // MLP half: residual3 = residual2 + proj(gelu(fc(ln_2(residual2))))
    ops::layernorm_forward(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), L.residual2.data(),
                           lw.ln2_w, lw.ln2_b, N, C);
    lm.fc.matmul(L.fch.data(), L.ln2.data(), lw.fc_b, N);
    step_gelu(m, L.fch_gelu.data(), L.fch.data(), N * 4 * C);
    lm.fc_proj.matmul(L.residual3.data(), L.fch_gelu.data(), lw.fc_proj_b, N);
    ops::residual_forward(L.residual3.data(), L.residual2.data(), L.residual3.data(), N * C);
    x = L.residual3.data();
  }
  for (std::size_t b = 0; b < B; ++b) caches[b]->hold(tokens.subspan(b * T, T));  // NEW

  // final LayerNorm, then the tied output layer: logits = ln_f(x) @ wte^T
  ops::layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), x, w.lnf_w, w.lnf_b, N,
                         C);
  m.output.matmul(a.logits.data(), a.lnf.data() + first * C, nullptr, rows);
  return view_of<2>(a.logits.data(), {rows, V});
}

// The lesson's call: one text, the model's own float32 matrices. Throws
// std::invalid_argument when start != cache.length.
View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, std::size_t start,
                           KVCache& cache, Activations& acts,
                           LogitsFor which = LogitsFor::kLastPosition);

// A Predictor (common/generate.hpp) that remembers: only the characters its
// cache has not seen go through the model. The model has learned positions
// 0 .. block_size-1 only, so once the text is longer, the window slides and
// every position shifts by one: the cached keys and values no longer belong
// to their positions, and the cache is rebuilt from the cropped window (the
// same logits as Recompute gives, at the cost of one prefill per step).
// `Cache` is what the cached forward keeps: this lesson's KVCache, or lesson
// 10's SmallCache or lesson 13's (a cache of the kind KVCache describes, with a
// `length` that the predictor sets to 0 to start again).
template <class Matrices = ModelMatrices<>, class Cache = KVCache>
class CachedPredictor : public Predictor {
 public:
  explicit CachedPredictor(const GPT& model) : CachedPredictor(model, Matrices(model)) {}
  CachedPredictor(const GPT& model, Matrices matrices)
      : CachedPredictor(model, std::move(matrices), Cache(model.config())) {}
  // A cache made by the caller (lesson 13's, which takes a format too).
  CachedPredictor(const GPT& model, Matrices matrices, Cache cache)
      : model_(model),
        matrices_(std::move(matrices)),
        cache_(std::move(cache)),
        acts_(model.config()) {
    seen_.reserve(model.config().block_size);
  }

  std::span<const float> next_logits(std::span<const TokenId> context) override {
    if (context.empty()) throw std::invalid_argument("next_logits: empty context");
    const std::span<const TokenId> window = crop_to_context(context, model_.config().block_size);
    // Reuse the cache only if it holds a prefix of this very window.
    const bool cache_is_prefix =
        seen_.size() < window.size() && std::equal(seen_.begin(), seen_.end(), window.begin());
    if (!cache_is_prefix) {
      cache_.length = 0;
      seen_.clear();
    }
    Cache* const caches[] = {&cache_};
    const auto logits = forward_with_cache(model_, matrices_, window.subspan(cache_.length), caches,
                                           acts_, LogitsFor::kLastPosition);
    seen_.assign(window.begin(), window.end());
    return require_finite({logits.data(), logits.size()});
  }
  const Cache& cache() const { return cache_; }

 private:
  const GPT& model_;
  Matrices matrices_;
  Cache cache_;
  Activations acts_;
  std::vector<TokenId> seen_;  // the window the cache holds
};

}  // namespace tang
