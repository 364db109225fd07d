// trainable_gpt.hpp: the GPT with everything training needs.
//
// forward() keeps every activation the backward pass reads (llm.c style), for a
// batch of B sequences of T positions; backward() walks the same operations in
// reverse and accumulates the gradient of the mean loss into `grads`, which has
// the exact layout of `params` (see common/parameters.hpp).
#pragma once

#include <span>

#include "config.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "tensor.hpp"
#include "tokenizer.hpp"

namespace tang {

class TrainableGPT {
 public:
  // max_batch x block_size positions fit in the activation buffers.
  TrainableGPT(const GPTConfig& config, std::size_t max_batch);

  // Weights ~ N(0, 0.02), biases 0, LayerNorm scales 1.
  void init_random(Rng& rng);

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
  std::size_t max_batch_;
  GPTWeights w_, g_;  // named views into params and grads

  // activations of the last forward(), for up to max_batch x block_size positions (N rows)
  struct Layer {
    Tensor<2> ln1, ln2;            // (N, C)
    Tensor<1> ln1_mean, ln1_rstd;  // (N)
    Tensor<1> ln2_mean, ln2_rstd;  // (N)
    Tensor<2> qkv;                 // (N, 3C)
    Tensor<2> atty;                // (N, C)  attention output before projection
    Tensor<1> att;                 // (B * NH * T * T) softmax probabilities
    Tensor<2> residual2;           // (N, C)  x after the attention half
    Tensor<2> fch, fch_gelu;       // (N, 4C)
    Tensor<2> residual3;           // (N, C)  x after the MLP half
  };
  Tensor<2> encoded_;  // (N, C)
  std::vector<Layer> layers_;
  Tensor<2> lnf_;                          // (N, C)
  Tensor<1> lnf_mean_, lnf_rstd_;          // (N)
  Tensor<2> probs_;                        // (N, V) softmax, then its gradient in place
  Tensor<1> losses_;                       // (N)
  std::vector<TokenId> inputs_, targets_;  // copies of the last batch
  std::size_t B_ = 0, T_ = 0;

  // backward scratch
  Tensor<2> dresidual_, dln_, datty_;  // (N, C)
  Tensor<2> dqkv_;                     // (N, 3C)
  Tensor<2> dfch_, dfch_gelu_;         // (N, 4C)
};

}  // namespace tang
