// config.hpp: the shape of a GPT, as five numbers, and how its attention
// shares keys and values (lesson 10).
#pragma once

#include <cstddef>
#include <string>

namespace tang {

// How a block's attention makes its keys and values (common/attention_inputs.hpp).
enum class Attention {
  kMultiHead,     // a key and a value per head (every lesson's model)
  kGroupedQuery,  // n_kv_head < n_head key/value heads, each read by n_head / n_kv_head
                  // query heads; multi-query is n_kv_head = 1
  kLatent,        // one latent vector of kv_latent floats per position; keys and values
                  // are its up-projections
};

struct GPTConfig {
  std::size_t vocab_size = 0;    // V: characters the model knows (newline included)
  std::size_t block_size = 128;  // T_max: the longest context the model reads
  std::size_t n_layer = 4;       // L: transformer blocks
  std::size_t n_head = 4;        // NH: attention heads per block
  std::size_t n_embd = 128;      // C: width of every position's vector
  std::size_t n_kv_head = 0;     // KVH: key/value heads; 0 = one per query head
  std::size_t kv_latent = 0;     // d_c: > 0 caches a latent of this width instead

  std::size_t head_size() const { return n_embd / n_head; }  // HS = C / NH
  std::size_t kv_heads() const { return n_kv_head == 0 ? n_head : n_kv_head; }
  Attention attention() const;
  // Floats a layer's cache keeps per position: 2 KVH HS (keys and values), or d_c.
  std::size_t cache_width() const;
  // Floats the attention's input projection writes per position: the queries (C)
  // and what the cache keeps. 3C for multi-head attention.
  std::size_t proj_width() const { return n_embd + cache_width(); }

  // Throws UserError when the numbers cannot describe a model.
  void validate() const;
  // "4 layers, 4 heads, 128 dims, context 128, vocabulary 7129", and for the
  // other attentions ", 1 key/value head" or ", key/value latent 32"
  std::string describe() const;
  // "multi-head", "grouped-query (2 key/value heads)", "multi-query", "latent (d_c 32)"
  std::string attention_name() const;
};

// Lessons 06-09's KV cache and lesson 11's paged cache keep a key and a value
// per head. For a model that shares them, why code written for that (`who`,
// e.g. "lesson 06's KV cache") cannot run it; "" for a multi-head model.
std::string why_not_multi_head(const GPTConfig& config, const std::string& who);
// Throws BadOption (a model the program cannot run, exit status 2) with that reason.
void require_multi_head(const GPTConfig& config, const std::string& who);

}  // namespace tang
