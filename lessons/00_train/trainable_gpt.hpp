// trainable_gpt.hpp: the GPT with everything training needs.
//
// forward() is the model's one forward pass (common/gpt.hpp) on a batch of B
// sequences of T positions, with the tuned kernels (common/fast/), followed by
// the loss; it keeps every activation in `acts`. backward() walks the same
// operations in reverse, reading those activations (llm.c's gpt2_backward),
// and accumulates the gradient of the mean loss into `grads`, which has the
// exact layout of `params` (common/parameters.hpp). With a dropout rate above
// zero, training_forward() drops that share of the residual stream's inputs
// (common/dropout.hpp) and backward() goes back through the same masks.
#pragma once

#include <memory>
#include <span>

#include "config.hpp"
#include "dropout.hpp"
#include "gpt.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "tensor.hpp"
#include "tokenizer.hpp"

namespace tang {

class TrainableGPT {
 public:
  // max_batch x block_size positions fit in the activation buffers.
  TrainableGPT(const GPTConfig& config, std::size_t max_batch, float dropout = 0.0f);

  // Each parameter by its rule (parameters.hpp): N(0, 0.02), biases 0, LayerNorm scales 1.
  void init_random(Rng& rng) { initialise_parameters(config_, params.data(), rng); }

  // inputs, targets (B, T). Returns the mean cross-entropy over the B*T targets,
  // the model as it writes (no dropout): for the held-out loss.
  float forward(std::span<const TokenId> inputs, std::span<const TokenId> targets, std::size_t B,
                std::size_t T);
  // The same with dropout, its masks drawn from dropout_seed: a training step.
  // Without a dropout rate it is forward().
  float training_forward(std::span<const TokenId> inputs, std::span<const TokenId> targets,
                         std::size_t B, std::size_t T, std::uint64_t dropout_seed);
  // Gradient of the last forward pass's mean loss (either kind), added to grads.
  void backward();
  void zero_grad() { grads.fill(0.0f); }

  const GPTConfig& config() const { return config_; }

  Tensor<1> params;  // (P) all weights, flat
  Tensor<1> grads;   // (P) same layout

 private:
  float run_forward(std::span<const TokenId> inputs, std::span<const TokenId> targets,
                    std::size_t B, std::size_t T, Dropout* dropout);
  // dqkv_ (N, 3C) -> dln_ (N, C), and the gradients of the attention's input weights
  void attention_inputs_backward(std::size_t l, std::size_t N);

  GPTConfig config_;
  GPTWeights w_, g_;                       // named views into params and grads
  Activations acts_;                       // of the last forward()
  std::unique_ptr<Dropout> dropout_;       // null: no dropout
  bool dropped_ = false;                   // whether the last forward used it
  Tensor<1> losses_;                       // (N)
  std::vector<TokenId> inputs_, targets_;  // copies of the last batch
  std::size_t B_ = 0, T_ = 0;

  // backward scratch
  Tensor<2> dresidual_, dln_, datty_;  // (N, C)
  Tensor<2> dbranch_;                  // (N, C) a branch's output gradient, through dropout
  Tensor<2> dqkv_;                     // (N, 3C)
  Tensor<2> dproj_;                    // (N, P)   lesson 10's variants: before qkv was spread
  Tensor<2> dkv_, dlatent_;            // (N, 2C), (N, d_c) latent attention
  Tensor<2> dfch_, dfch_gelu_;         // (N, 4C)
};

}  // namespace tang
