#include "10_cache_size/small_cache.hpp"

#include <algorithm>
#include <stdexcept>

namespace tang {

SmallCache::SmallCache(const GPTConfig& config)
    : layers(Tensor<2>::from_shape({config.n_layer, config.block_size * config.cache_width()})) {}

std::size_t small_cache_bytes_per_position(const GPTConfig& config) {
  return config.n_layer * config.cache_width() * sizeof(float);
}

View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, SmallCache& cache,
                           Activations& acts, LogitsFor which) {
  SmallCache* const caches[] = {&cache};
  return forward_with_cache(model, ModelMatrices<>(model), tokens, caches, acts, which);
}

SmallCachePredictor::SmallCachePredictor(const GPT& model)
    : model_(model), matrices_(model), cache_(model.config()), acts_(model.config()) {
  seen_.reserve(model.config().block_size);
}

std::span<const float> SmallCachePredictor::next_logits(std::span<const TokenId> context) {
  if (context.empty()) throw std::invalid_argument("next_logits: empty context");
  const std::span<const TokenId> window = crop_to_context(context, model_.config().block_size);
  // Reuse the cache only if it holds a prefix of this very window.
  const bool cache_is_prefix =
      seen_.size() < window.size() && std::equal(seen_.begin(), seen_.end(), window.begin());
  if (!cache_is_prefix) cache_.length = 0, seen_.clear();
  SmallCache* const caches[] = {&cache_};
  const auto logits = forward_with_cache(model_, matrices_, window.subspan(cache_.length), caches,
                                         acts_, LogitsFor::kLastPosition);
  seen_.assign(window.begin(), window.end());
  return require_finite({logits.data(), logits.size()});
}

}  // namespace tang
