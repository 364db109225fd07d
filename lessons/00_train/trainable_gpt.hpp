// trainable_gpt.hpp: the GPT with everything training needs.
//
// forward() is the model's one forward pass (common/gpt.hpp) on a batch of B
// sequences of T positions, with the tuned kernels (common/fast/), followed by
// the loss; it keeps every activation in `acts`. backward() walks the same
// operations in reverse, reading those activations (llm.c's gpt2_backward),
// and accumulates the gradient of the mean loss into `grads`, which has the
// exact layout of `params` (common/parameters.hpp).
#pragma once

#include <span>

#include "config.hpp"
#include "gpt.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "tensor.hpp"
#include "tokenizer.hpp"

namespace tang {

class TrainableGPT {
 public:
  // max_batch x block_size positions fit in the activation buffers.
  TrainableGPT(const GPTConfig& config, std::size_t max_batch);

  // Each parameter by its rule (parameters.hpp): N(0, 0.02), biases 0, LayerNorm scales 1.
  void init_random(Rng& rng) { initialise_parameters(config_, params.data(), rng); }

  // inputs, targets (B, T). Returns the mean cross-entropy over the B*T targets.
  float forward(std::span<const TokenId> inputs, std::span<const TokenId> targets, std::size_t B,
                std::size_t T);
  // Gradient of the last forward()'s mean loss, added to grads.
  void backward();
  void zero_grad() { grads.fill(0.0f); }

  const GPTConfig& config() const { return config_; }

  Tensor<1> params;  // (P) all weights, flat
  Tensor<1> grads;   // (P) same layout

 private:
  GPTConfig config_;
  GPTWeights w_, g_;                       // named views into params and grads
  Activations acts_;                       // of the last forward()
  Tensor<1> losses_;                       // (N)
  std::vector<TokenId> inputs_, targets_;  // copies of the last batch
  std::size_t B_ = 0, T_ = 0;

  // backward scratch
  Tensor<2> dresidual_, dln_, datty_;  // (N, C)
  Tensor<2> dqkv_;                     // (N, 3C)
  Tensor<2> dfch_, dfch_gelu_;         // (N, 4C)
};

}  // namespace tang
