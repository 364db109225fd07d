// gpt.hpp: the model core every lesson shares.
//
// GPT holds a config, a tokenizer and the parameters. forward() runs new
// characters through it, reading and extending a KV cache:
//
//   forward(model, tokens, start, cache, state, which)
//
//   tokens  the T new characters, at absolute positions start .. start+T-1
//   cache   keys and values of positions 0 .. start-1 (cache.length == start);
//           forward appends those of the new positions
//   which   logits for the last position only (generation) or for all T
//
// Without a cache you simply reset it and pass the whole text with start = 0:
// that recomputes everything, which is what lesson 06 measures.
// All buffers live in ForwardState, allocated once for block_size positions, so
// a decoding step allocates nothing.
#pragma once

#include <span>

#include "config.hpp"
#include "parameters.hpp"
#include "tensor.hpp"
#include "tokenizer.hpp"

namespace tang {

class GPT {
 public:
  GPT(GPTConfig config, Tokenizer tokenizer, Tensor<1> parameters);
  GPT(GPT&& other) noexcept;
  GPT(const GPT&) = delete;
  GPT& operator=(const GPT&) = delete;
  GPT& operator=(GPT&&) = delete;

  const GPTConfig& config() const { return config_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }
  const GPTWeights& weights() const { return weights_; }
  const Tensor<1>& parameters() const { return parameters_; }

 private:
  GPTConfig config_;
  Tokenizer tokenizer_;
  Tensor<1> parameters_;  // (parameter_count) the flat buffer
  GPTWeights weights_;    // named views into parameters_
};

// Per layer, the key and value vector of every position read so far.
struct KVCache {
  explicit KVCache(const GPTConfig& config);
  Tensor<3> k;             // (L, T_max, C)
  Tensor<3> v;             // (L, T_max, C)
  std::size_t length = 0;  // positions held
  void reset() { length = 0; }
  std::size_t capacity() const { return k.shape(1); }
};

// Bytes of cache one position costs: 2 (k and v) x layers x dims x 4 bytes.
std::size_t kv_cache_bytes_per_position(const GPTConfig& config);

// Activations for up to block_size positions, reused by every call.
struct ForwardState {
  explicit ForwardState(const GPTConfig& config);
  Tensor<2> x;       // (T_max, C)  the residual stream
  Tensor<2> xn;      // (T_max, C)  LayerNorm output
  Tensor<2> qkv;     // (T_max, 3C) queries | keys | values
  Tensor<2> att;     // (T_max, C)  attention output, heads side by side
  Tensor<2> hidden;  // (T_max, 4C) MLP hidden layer
  Tensor<2> mlp;     // (T_max, 4C) after GELU
  Tensor<1> scores;  // (T_max)     one query's attention weights
  Tensor<2> logits;  // (T_max, V)
};

enum class LogitsFor { kLastPosition, kAllPositions };

// Returns a view into state.logits: (1, V) for the last position or (T, V).
// Throws std::invalid_argument when start != cache.length or the text does not fit.
View<2> forward(const GPT& model, std::span<const TokenId> tokens, std::size_t start,
                KVCache& cache, ForwardState& state, LogitsFor which);

// Causal attention of T new positions over every cached position, for one layer.
// q comes from qkv (T, 3C); keys/values of positions 0 .. start+T-1 are already
// in k_cache, v_cache (T_max, C). New position t (absolute start+t) may look at
// positions 0 .. start+t: the causal mask shifted by what the cache holds.
// out (T, C); scores is scratch of at least start+T floats.
void cached_attention(float* out, const float* qkv, const float* k_cache, const float* v_cache,
                      std::size_t T, std::size_t start, std::size_t C, std::size_t NH,
                      float* scores);

}  // namespace tang
