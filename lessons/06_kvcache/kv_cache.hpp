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
// kv_cache.cpp is common/gpt.cpp's forward with the cache added; every
// changed line is marked "// NEW". Its two new steps are exercise 06a.
#pragma once

#include <span>
#include <vector>

#include "generate.hpp"
#include "gpt.hpp"

namespace tang {

// Per layer, the key and value vector of every position read so far.
struct KVCache {
  explicit KVCache(const GPTConfig& config);
  Tensor<3> k;             // (L, T_max, C)
  Tensor<3> v;             // (L, T_max, C)
  std::size_t length = 0;  // positions held
};

// Bytes of cache one position costs: 2 (k and v) x layers x dims x 4 bytes.
std::size_t kv_cache_bytes_per_position(const GPTConfig& config);

// Returns the logits of the new positions: (T, V), or (1, V) for the last one.
// Throws std::invalid_argument when start != cache.length or the text does not fit.
View<2> forward_with_cache(const GPTConfig& config, const GPTWeights& weights,
                           std::span<const TokenId> tokens, std::size_t start, KVCache& cache,
                           Activations& acts, const Kernels& kernels, LogitsFor which);

// The lesson's call: plain kernels (common/ops.hpp).
View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, std::size_t start,
                           KVCache& cache, Activations& acts,
                           LogitsFor which = LogitsFor::kLastPosition);

// A Predictor (common/generate.hpp) that remembers: only the characters its
// cache has not seen go through the model. The model has learned positions
// 0 .. block_size-1 only, so once the text is longer, the window slides and
// every position shifts by one: the cached keys and values no longer belong
// to their positions, and the cache is rebuilt from the cropped window (the
// same logits as Recompute gives, at the cost of one prefill per step).
class CachedPredictor : public Predictor {
 public:
  explicit CachedPredictor(const GPT& model, const Kernels& kernels = kPlainKernels);
  std::span<const float> next_logits(std::span<const TokenId> context) override;
  const KVCache& cache() const { return cache_; }

 private:
  const GPT& model_;
  const Kernels& kernels_;
  KVCache cache_;
  Activations acts_;
  std::vector<TokenId> seen_;  // the window the cache holds
};

}  // namespace tang
