#include "06_kvcache/kv_memory.hpp"

#include <cstdio>

namespace tang {

std::size_t CacheLayout::bytes_per_position() const {
  if (latent_dim > 0) return layers * (latent_dim + rope_dim) * bytes_per_value;
  return 2 * layers * kv_heads * head_dim * bytes_per_value;
}

CacheLayout layout_of(const GPTConfig& c) {
  return {"this course's GPT", "multi-head", c.n_layer, c.n_head, c.head_size(), 0, 0,
          sizeof(float)};
}

std::vector<CacheLayout> published_layouts() {
  // Numbers from each model's published config (config.json / paper):
  // layers, key/value heads, head dimension; MLA: kv_lora_rank, qk_rope_head_dim.
  return {
      {"GPT-3 175B", "multi-head", 96, 96, 128, 0, 0, 2},
      {"Llama 2 7B", "multi-head", 32, 32, 128, 0, 0, 2},
      {"Llama 2 70B", "grouped-query (8 kv heads)", 80, 8, 128, 0, 0, 2},
      {"Llama 3 8B", "grouped-query (8 kv heads)", 32, 8, 128, 0, 0, 2},
      {"DeepSeek-V3 671B", "latent (MLA)", 61, 0, 0, 512, 64, 2},
  };
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

}  // namespace tang
