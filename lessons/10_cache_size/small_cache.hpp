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
// SmallCache is a cache of the kind lesson 06's KVCache describes, so lesson
// 06's forward_with_cache runs with it unchanged; what differs is its attention
// step (small_cache.cpp): the grouped step is exercise 10a, the latent one in
// its absorbed form exercise 10b.
#pragma once

#include <span>

#include "06_kvcache/kv_cache.hpp"  // forward_with_cache, CachedPredictor
#include "gpt.hpp"

namespace tang {

// Per layer, what attention needs of every position read so far.
struct SmallCache {
  explicit SmallCache(const GPTConfig& config);
  Tensor<2> layers;        // (L, T_max W), W = config.cache_width(): each layer's
                           // floats, laid out as its attention reads them (see above)
  std::size_t length = 0;  // positions held
  float* layer(std::size_t l) { return &layers(l, 0); }

  // What lesson 06's forward_with_cache asks of a cache (kv_cache.hpp).
  std::size_t positions() const { return length; }
  void check_room(std::size_t T, const GPTConfig& config) const {
    check_context(length, T, config);
  }
  // Layer l of one text: rows (T, P), the new positions' queries | what the
  // cache keeps (config.proj_width() floats each) -> out (T, C).
  void attend(std::size_t l, float* out, const float* rows, std::size_t T, const GPT& model);
  void hold(std::span<const TokenId> tokens) { length += tokens.size(); }
};

// Bytes of cache one position costs: layers x W x 4 bytes.
std::size_t small_cache_bytes_per_position(const GPTConfig& config);

// One text (B = 1), the model's own float32 matrices.
View<2> forward_with_cache(const GPT& model, std::span<const TokenId> tokens, SmallCache& cache,
                           Activations& acts, LogitsFor which = LogitsFor::kLastPosition);

// A Predictor over the small cache: lesson 06's CachedPredictor for every variant
// (the window slides past the context by rebuilding the cache, as there).
using SmallCachePredictor = CachedPredictor<ModelMatrices<>, SmallCache>;

}  // namespace tang
