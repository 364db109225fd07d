// kv_memory.hpp: what the KV cache costs in memory.
//
// Per position, every layer stores a key and a value vector:
//   bytes = 2 (k and v) x layers x kv_heads x head_dim x bytes per number
// Grouped-query attention (GQA) lets several query heads share one k/v head,
// so kv_heads < heads. Multi-head latent attention (MLA, DeepSeek) stores one
// compressed vector per layer instead (latent + a small rotary key part):
//   bytes = layers x (latent_dim + rope_dim) x bytes per number
#pragma once

#include <string>
#include <vector>

#include "config.hpp"

namespace tang {

struct CacheLayout {
  std::string model;      // e.g. "Llama 3 8B"
  std::string attention;  // "multi-head", "grouped-query (8 kv heads)", "latent (MLA)"
  std::size_t layers = 0;
  std::size_t kv_heads = 0;         // MHA / GQA
  std::size_t head_dim = 0;         // MHA / GQA
  std::size_t latent_dim = 0;       // MLA: compressed k/v width
  std::size_t rope_dim = 0;         // MLA: decoupled rotary key width
  std::size_t bytes_per_value = 2;  // fp16/bf16 for served models, 4 for our float32

  std::size_t bytes_per_position() const;
};

// Our model's layout, from its config.
CacheLayout layout_of(const GPTConfig& config);

// A few well-known models, from their published configurations.
std::vector<CacheLayout> published_layouts();

// "4.0 KB", "512.0 KB", "1.5 GB"
std::string human_bytes(double bytes);

}  // namespace tang
