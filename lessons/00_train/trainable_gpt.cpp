#include "00_train/trainable_gpt.hpp"

#include <stdexcept>

#include "fast/fast.hpp"
#include "ops.hpp"

namespace tang {

namespace {
Tensor<2> matrix(std::size_t rows, std::size_t cols) {
  return Tensor<2>::from_shape({rows, cols});
}
Tensor<1> vector(std::size_t n) {
  return Tensor<1>::from_shape({n});
}
}  // namespace

TrainableGPT::TrainableGPT(const GPTConfig& config, std::size_t max_batch, float dropout)
    : params(vector(parameter_count(config))),
      grads(vector(parameter_count(config))),
      config_(config),
      w_(bind_weights(config_, params.data())),
      g_(bind_weights(config_, grads.data())),
      acts_(config, max_batch, Keep::kEverything) {
  const std::size_t N = max_batch * config.block_size, C = config.n_embd;
  losses_ = vector(N);
  dresidual_ = matrix(N, C);
  dln_ = matrix(N, C);
  datty_ = matrix(N, C);
  if (dropout > 0.0f) {
    dropout_ = std::make_unique<Dropout>(dropout, config.n_layer, N * C);
    dbranch_ = matrix(N, C);
  }
  dqkv_ = matrix(N, 3 * C);
  dfch_ = matrix(N, 4 * C);
  dfch_gelu_ = matrix(N, 4 * C);
  grads.fill(0.0f);
}

float TrainableGPT::forward(std::span<const TokenId> inputs, std::span<const TokenId> targets,
                            std::size_t B, std::size_t T) {
  return run_forward(inputs, targets, B, T, nullptr);
}

float TrainableGPT::training_forward(std::span<const TokenId> inputs,
                                     std::span<const TokenId> targets, std::size_t B, std::size_t T,
                                     std::uint64_t dropout_seed) {
  if (dropout_) dropout_->reseed(dropout_seed);
  return run_forward(inputs, targets, B, T, dropout_.get());
}

float TrainableGPT::run_forward(std::span<const TokenId> inputs, std::span<const TokenId> targets,
                                std::size_t B, std::size_t T, Dropout* dropout) {
  if (B == 0 || B > acts_.max_batch || T == 0 || T > config_.block_size || inputs.size() != B * T ||
      targets.size() != B * T) {
    throw std::invalid_argument("TrainableGPT::forward: batch does not fit the buffers");
  }
  B_ = B, T_ = T;
  dropped_ = dropout != nullptr;
  inputs_.assign(inputs.begin(), inputs.end());
  targets_.assign(targets.begin(), targets.end());
  // the model's forward pass, with the tuned kernels, then the loss; the
  // softmax overwrites the logits (backward turns them into their gradient)
  auto logits = tang::forward(config_, w_, inputs_, B, T, acts_, fast::kernels(),
                              LogitsFor::kAllPositions, dropout);  // (B*T, V)
  return fast::crossentropy_forward(losses_.data(), logits.data(), logits.data(), targets_.data(),
                                    B * T, config_.vocab_size);
}

void TrainableGPT::backward() {
  const std::size_t B = B_, T = T_, N = B * T, C = config_.n_embd, V = config_.vocab_size;
  const std::size_t NH = config_.n_head;
  if (N == 0) throw std::logic_error("TrainableGPT::backward before forward");
  auto zero = [](Tensor<2>& t, std::size_t n) { std::fill(t.data(), t.data() + n, 0.0f); };
  // The gradient at a branch's output: the stream's gradient, through the
  // branch's dropout mask when the forward pass dropped.
  auto branch_gradient = [&](std::size_t site) -> const float* {
    if (!dropped_) return dresidual_.data();
    std::copy(dresidual_.data(), dresidual_.data() + N * C, dbranch_.data());
    dropout_->backward(dbranch_.data(), N * C, site);
    return dbranch_.data();
  };

  // loss -> logits (in place over the probabilities) -> final LayerNorm
  fast::crossentropy_backward(acts_.logits.data(), acts_.logits.data(), targets_.data(), N, V);
  zero(dln_, N * C);
  fast::matmul_backward(dln_.data(), g_.wte, nullptr, acts_.logits.data(), acts_.lnf.data(), w_.wte,
                        N, C, V);
  zero(dresidual_, N * C);
  const float* last = acts_.layers.back().residual3.data();
  ops::layernorm_backward(dresidual_.data(), g_.lnf_w, g_.lnf_b, dln_.data(), last, w_.lnf_w,
                          acts_.lnf_mean.data(), acts_.lnf_rstd.data(), N, C);

  // Through the blocks, last to first. dresidual_ is the gradient of the stream;
  // a residual connection passes it unchanged to both branches (ops::residual_backward),
  // so each branch reads dresidual_ as its output gradient and the branch's
  // input gradient is added back into dresidual_.
  for (std::size_t l = config_.n_layer; l-- > 0;) {
    const LayerWeights& lw = w_.layers[l];
    LayerWeights& lg = g_.layers[l];
    const Activations::Layer& a = acts_.layers[l];
    const float* residual = l == 0 ? acts_.encoded.data() : acts_.layers[l - 1].residual3.data();

    // MLP half: residual3 = residual2 + proj(gelu(fc(ln_2(residual2))))
    zero(dfch_gelu_, N * 4 * C);
    fast::matmul_backward(dfch_gelu_.data(), lg.fc_proj_w, lg.fc_proj_b, branch_gradient(2 + 2 * l),
                          a.fch_gelu.data(), lw.fc_proj_w, N, 4 * C, C);
    zero(dfch_, N * 4 * C);
    fast::gelu_backward(dfch_.data(), a.fch.data(), dfch_gelu_.data(), N * 4 * C);
    zero(dln_, N * C);
    fast::matmul_backward(dln_.data(), lg.fc_w, lg.fc_b, dfch_.data(), a.ln2.data(), lw.fc_w, N, C,
                          4 * C);
    ops::layernorm_backward(dresidual_.data(), lg.ln2_w, lg.ln2_b, dln_.data(), a.residual2.data(),
                            lw.ln2_w, a.ln2_mean.data(), a.ln2_rstd.data(), N, C);

    // attention half: residual2 = residual + proj(attention(ln_1(residual)))
    zero(datty_, N * C);
    fast::matmul_backward(datty_.data(), lg.attn_proj_w, lg.attn_proj_b, branch_gradient(1 + 2 * l),
                          a.atty.data(), lw.attn_proj_w, N, C, C);
    zero(dqkv_, N * 3 * C);
    fast::attention_backward(dqkv_.data(), datty_.data(), a.qkv.data(), a.att.data(), B, T, C, NH);
    zero(dln_, N * C);
    fast::matmul_backward(dln_.data(), lg.qkv_w, lg.qkv_b, dqkv_.data(), a.ln1.data(), lw.qkv_w, N,
                          C, 3 * C);
    ops::layernorm_backward(dresidual_.data(), lg.ln1_w, lg.ln1_b, dln_.data(), residual, lw.ln1_w,
                            a.ln1_mean.data(), a.ln1_rstd.data(), N, C);
  }
  if (dropped_) dropout_->backward(dresidual_.data(), N * C, 0);  // the embeddings' mask
  ops::encoder_backward(g_.wte, g_.wpe, dresidual_.data(), inputs_.data(), B, T, C);
}

}  // namespace tang
