#include "10_cache_size/small_cache.hpp"

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

}  // namespace tang
