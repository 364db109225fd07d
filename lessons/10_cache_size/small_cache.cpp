#include "10_cache_size/small_cache.hpp"

#include "10_cache_size/exercise/grouped_attention.hpp"  // exercise 10a
#include "10_cache_size/exercise/latent_attention.hpp"   // exercise 10b

namespace tang {

SmallCache::SmallCache(const GPTConfig& config)
    : layers(Tensor<2>::from_shape({config.n_layer, config.block_size * config.cache_width()})) {}

void SmallCache::attend(std::size_t l, float* out, const float* rows, std::size_t T,
                        const GPT& model) {
  const GPTConfig& cfg = model.config();
  float* cached = layer(l);                     // this layer's T_max W floats
  if (cfg.attention() == Attention::kLatent) {  // exercise 10b
    latent_attention_with_cache(out, rows, cached, model.weights().layers[l].kv_up_w, length, T,
                                cfg.n_embd, cfg.n_head, cfg.kv_latent);
  } else {  // exercise 10a; multi-head attention is KVH = NH
    grouped_attention_with_cache(out, rows, cached, cfg.block_size, length, T, cfg.n_embd,
                                 cfg.n_head, cfg.kv_heads());
  }
}

std::size_t small_cache_bytes_per_position(const GPTConfig& config) {
  return config.n_layer * config.cache_width() * sizeof(float);
}

View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, SmallCache& cache,
                           Activations& acts, LogitsFor which) {
  SmallCache* const caches[] = {&cache};
  return forward_with_cache(model, ModelMatrices<>(model), tokens, caches, acts, which);
}

}  // namespace tang
