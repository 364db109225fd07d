// kv_cache.cpp: the cache itself, and the lesson's one-text call of the cached
// forward (whose body is in kv_cache.hpp, so that lesson 08 can run it over
// its own weight formats).
#include "06_kvcache/kv_cache.hpp"

#include <stdexcept>

namespace tang {

namespace {
const GPTConfig& multi_head(const GPTConfig& config) {
  require_multi_head(config, "lesson 06's KV cache");
  return config;
}
}  // namespace

KVCache::KVCache(const GPTConfig& config)
    : k(Tensor<3>::from_shape({multi_head(config).n_layer, config.block_size, config.n_embd})),
      v(Tensor<3>::from_shape({config.n_layer, config.block_size, config.n_embd})) {}

void check_context(std::size_t held, std::size_t T, const GPTConfig& config) {
  if (held + T > config.block_size)
    throw std::invalid_argument("forward_with_cache: text longer than the context");
}

void KVCache::attend(std::size_t l, float* out, const float* rows, std::size_t T,
                     const GPT& model) {
  const GPTConfig& cfg = model.config();
  attention_with_cache(out, rows, &k(l, 0, 0), &v(l, 0, 0), length, T, cfg.n_embd, cfg.n_head);
}

std::size_t kv_cache_bytes_per_position(const GPTConfig& config) {
  return 2 * config.n_layer * config.n_embd * sizeof(float);
}

Activations step_activations(const GPTConfig& config, std::size_t rows) {
  if (rows == 0) throw std::invalid_argument("step_activations: at least one row");
  // Activations hold windows of block_size rows: enough of them for `rows`.
  Activations acts(config, (rows + config.block_size - 1) / config.block_size);
  acts.logits = Tensor<2>::from_shape({rows, config.vocab_size});
  return acts;
}

View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, std::size_t start,
                           KVCache& cache, Activations& acts, LogitsFor which) {
  if (start != cache.length)
    throw std::invalid_argument("forward_with_cache: start must equal cache.length");
  KVCache* const caches[] = {&cache};
  return forward_with_cache(model, ModelMatrices<>(model), tokens, caches, acts, which);
}

}  // namespace tang
