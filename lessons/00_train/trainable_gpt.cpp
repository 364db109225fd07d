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
  if (config.attention() != Attention::kMultiHead) dproj_ = matrix(N, config.proj_width());
  if (config.attention() == Attention::kLatent) {
    dkv_ = matrix(N, 2 * C);
    dlatent_ = matrix(N, config.kv_latent);
  }
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
  B_ = B;
  T_ = T;
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
    attention_inputs_backward(l, N);
    ops::layernorm_backward(dresidual_.data(), lg.ln1_w, lg.ln1_b, dln_.data(), residual, lw.ln1_w,
                            a.ln1_mean.data(), a.ln1_rstd.data(), N, C);
  }
  if (dropped_) dropout_->backward(dresidual_.data(), N * C, 0);  // the embeddings' mask
  ops::encoder_backward(g_.wte, g_.wpe, dresidual_.data(), inputs_.data(), B, T, C);
}

void TrainableGPT::attention_inputs_backward(std::size_t l, std::size_t N) {
  const std::size_t C = config_.n_embd, P = config_.proj_width();
  const LayerWeights& lw = w_.layers[l];
  LayerWeights& lg = g_.layers[l];
  const Activations::Layer& a = acts_.layers[l];
  if (config_.attention() == Attention::kMultiHead) {
    fast::matmul_backward(dln_.data(), lg.qkv_w, lg.qkv_b, dqkv_.data(), a.ln1.data(), lw.qkv_w, N,
                          C, 3 * C);
    return;
  }
  // back through the spreading of attention_inputs_forward: dqkv (N, 3C) -> dproj (N, P)
  std::fill(dproj_.data(), dproj_.data() + N * P, 0.0f);
  for (std::size_t n = 0; n < N; ++n) {  // the queries' gradient as it is
    const float* dq = dqkv_.data() + n * 3 * C;
    std::copy(dq, dq + C, dproj_.data() + n * P);
  }
  if (config_.attention() == Attention::kGroupedQuery) {
    // a key/value head read by several query heads gets the sum of their gradients
    const std::size_t HS = config_.head_size(), NH = config_.n_head, KVH = config_.kv_heads();
    const std::size_t group = NH / KVH;
    for (std::size_t n = 0; n < N; ++n) {
      const float* row = dqkv_.data() + n * 3 * C;
      float* dkeys = dproj_.data() + n * P + C;  // (KVH, HS), then the values (KVH, HS)
      float* dvalues = dkeys + KVH * HS;
      for (std::size_t h = 0; h < NH; ++h) {
        const std::size_t g = h / group;
        for (std::size_t i = 0; i < HS; ++i) {
          dkeys[g * HS + i] += row[C + h * HS + i];
          dvalues[g * HS + i] += row[2 * C + h * HS + i];
        }
      }
    }
  } else {
    // latent: kv (N, 2C) = latent (N, d_c) @ kv_up_w^T, so back through that matmul
    const std::size_t dc = config_.kv_latent;
    for (std::size_t n = 0; n < N; ++n) {
      const float* dkv = dqkv_.data() + n * 3 * C + C;
      std::copy(dkv, dkv + 2 * C, dkv_.data() + n * 2 * C);
    }
    std::fill(dlatent_.data(), dlatent_.data() + N * dc, 0.0f);
    fast::matmul_backward(dlatent_.data(), lg.kv_up_w, nullptr, dkv_.data(), a.latent.data(),
                          lw.kv_up_w, N, dc, 2 * C);
    for (std::size_t n = 0; n < N; ++n) {
      const float* dc_row = dlatent_.data() + n * dc;
      std::copy(dc_row, dc_row + dc, dproj_.data() + n * P + C);
    }
  }
  fast::matmul_backward(dln_.data(), lg.qkv_w, lg.qkv_b, dproj_.data(), a.ln1.data(), lw.qkv_w, N,
                        C, P);
}

}  // namespace tang
