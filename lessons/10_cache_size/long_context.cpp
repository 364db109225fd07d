#include "10_cache_size/long_context.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "10_cache_size/small_cache.hpp"
#include "spread.hpp"

namespace tang {

GPTConfig long_context_shape(const GPTConfig& ours, std::size_t context) {
  GPTConfig big;
  big.vocab_size = ours.vocab_size;
  big.block_size = context;
  big.n_layer = 12;
  big.n_head = 12;
  big.n_embd = 768;
  // at least one key/value head, or one latent float: never multi-head by rounding down
  if (ours.attention() == Attention::kGroupedQuery) {
    big.n_kv_head = ours.kv_heads() == 1
                        ? 1
                        : std::max<std::size_t>(1, big.n_head * ours.kv_heads() / ours.n_head);
  }
  if (ours.attention() == Attention::kLatent)
    big.kv_latent = std::max<std::size_t>(1, big.n_embd * ours.kv_latent / ours.n_embd);
  big.validate();  // throws when that count does not divide the 12 heads
  return big;
}

double time_small_cache_step_ms(const GPT& model, std::size_t B, std::size_t cached,
                                std::size_t steps) {
  if (steps == 0 || B == 0)
    throw std::invalid_argument("time_small_cache_step_ms: nothing to time");
  if (cached >= model.config().block_size)
    throw std::invalid_argument("time_small_cache_step_ms: no room for one more position");
  std::vector<SmallCache> caches;
  std::vector<SmallCache*> pointers;
  caches.reserve(B);
  for (std::size_t b = 0; b < B; ++b) {
    caches.emplace_back(model.config());
    caches.back().layers.fill(0.0f);  // touched now, not in the first timed step
  }
  for (SmallCache& cache : caches) pointers.push_back(&cache);
  Activations acts = step_activations(model.config(), B);
  const std::vector<TokenId> tokens(B, 1);
  const ModelMatrices<> matrices(model);
  std::vector<double> ms;
  for (std::size_t i = 0; i <= steps; ++i) {
    for (SmallCache& cache : caches) cache.length = cached;
    const auto start = std::chrono::steady_clock::now();
    forward_with_cache(model, matrices, tokens, pointers, acts, LogitsFor::kLastPosition);
    const auto stop = std::chrono::steady_clock::now();
    if (i > 0) ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return median(ms);
}

}  // namespace tang
