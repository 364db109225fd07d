// gpt.hpp: the model every lesson shares, without a cache.
//
// GPT holds a config, a tokenizer and the parameters. forward() reads a whole
// window of text and scores, at every position, every character that could
// come next (the logits):
//
//   forward(model, tokens, acts)   tokens (T) -> acts.logits (T, V) or (1, V)
//
// Nothing is remembered between calls: to write a text, a lesson calls
// forward on the whole text again after every new character. Lesson 06 adds
// the KV cache that removes that repeated work (lessons/06_kvcache/kv_cache.hpp
// is this file's forward with the cache added).
//
// Everything forward computes is kept in Activations, allocated once; the
// trainer (lessons/00_train) reads them back in its backward pass, so training
// and the lessons run one and the same forward.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "config.hpp"
#include "parameters.hpp"
#include "tensor.hpp"
#include "tokenizer.hpp"

namespace tang {

class Dropout;  // dropout.hpp

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

// A model of `config` as lesson_00_train starts one, each parameter by its rule
// (parameters.hpp), drawn from Rng(seed): for timing shapes nobody trained.
GPT initialised_model(const GPTConfig& config, Tokenizer tokenizer, std::uint64_t seed);

// The four heavy operations of forward, as swappable functions. The lessons
// use kPlainKernels (ops.hpp: plain loops, the same bits on every machine);
// the trainer and the benchmarks pass fast::kernels() (common/fast/).
struct Kernels {
  void (*matmul)(float* out, const float* inp, const float* weight, const float* bias,
                 std::size_t N, std::size_t IC, std::size_t OC);
  void (*attention)(float* out, float* att, const float* qkv, std::size_t B, std::size_t T,
                    std::size_t C, std::size_t NH);
  void (*layernorm)(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                    const float* bias, std::size_t N, std::size_t C);
  void (*gelu)(float* out, const float* inp, std::size_t n);
};
extern const Kernels kPlainKernels;

// What Activations keep: writing needs the logits of the last position only;
// training and tests keep everything (all logits, the attention weights).
enum class Keep { kLastLogits, kEverything };

// Everything forward computes, for up to max_batch x block_size positions (N rows).
// Throws UserError naming the sizes when that would not fit in this machine's memory.
struct Activations {
  Activations(const GPTConfig& config, std::size_t max_batch = 1, Keep keep = Keep::kLastLogits);
  struct Layer {
    Tensor<2> ln1;                 // (N, C)   ln_1(x)
    Tensor<1> ln1_mean, ln1_rstd;  // (N)
    Tensor<2> qkv;                 // (N, 3C)  queries | keys | values, per query head
    Tensor<1> att;                 // (B, NH, T, T) attention weights (Keep::kEverything)
    Tensor<2> atty;                // (N, C)   attention output, heads side by side
    Tensor<2> residual2;           // (N, C)   x after the attention half
    Tensor<2> ln2;                 // (N, C)   ln_2(x)
    Tensor<1> ln2_mean, ln2_rstd;  // (N)
    Tensor<2> fch, fch_gelu;       // (N, 4C)  MLP hidden layer, before and after GELU
    Tensor<2> residual3;           // (N, C)   x after the MLP half
    // lesson 10's variants (attention_inputs.hpp); empty for multi-head attention
    Tensor<2> proj;    // (N, P)   queries | what the cache keeps, before qkv is spread out
    Tensor<2> latent;  // (N, d_c) latent attention's vector per position
    Tensor<2> kv;      // (N, 2C)  keys | values rebuilt from it
  };
  Tensor<2> encoded;  // (N, C)  token + position embeddings
  std::vector<Layer> layers;
  Tensor<2> lnf;                 // (N, C)  final LayerNorm
  Tensor<1> lnf_mean, lnf_rstd;  // (N)
  Tensor<2> logits;              // (N, V), or (1, V) with Keep::kLastLogits
  std::size_t max_batch;
};

enum class LogitsFor { kLastPosition, kAllPositions };

// tokens (B, T), B sequences of T characters at positions 0 .. T-1. Fills
// `acts` and returns a view of the logits: (B*T, V), or (1, V) for the last
// position only (B = 1). Throws std::invalid_argument when they do not fit
// (all positions' logits need Activations with Keep::kEverything). The trainer
// passes a Dropout (dropout.hpp); writing passes none.
View<2> forward(const GPTConfig& config, const GPTWeights& weights, std::span<const TokenId> tokens,
                std::size_t B, std::size_t T, Activations& acts, const Kernels& kernels,
                LogitsFor which, Dropout* dropout = nullptr);

// The lessons' call: one window, plain kernels.
View<2> forward(const GPT& model, std::span<const TokenId> tokens, Activations& acts,
                LogitsFor which = LogitsFor::kLastPosition);

}  // namespace tang
