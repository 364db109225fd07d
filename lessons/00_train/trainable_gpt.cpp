#include "trainable_gpt.hpp"

#include <stdexcept>

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

TrainableGPT::TrainableGPT(const GPTConfig& config, std::size_t max_batch)
    : params(vector(parameter_count(config))),
      grads(vector(parameter_count(config))),
      config_(config),
      max_batch_(max_batch),
      w_(bind_weights(config_, params.data())),
      g_(bind_weights(config_, grads.data())) {
  const std::size_t N = max_batch * config.block_size, C = config.n_embd;
  const std::size_t T = config.block_size, NH = config.n_head;
  encoded_ = matrix(N, C);
  for (std::size_t l = 0; l < config.n_layer; ++l) {
    layers_.push_back(Layer{matrix(N, C), matrix(N, C), vector(N), vector(N), vector(N), vector(N),
                            matrix(N, 3 * C), matrix(N, C), vector(max_batch * NH * T * T),
                            matrix(N, C), matrix(N, 4 * C), matrix(N, 4 * C), matrix(N, C)});
  }
  lnf_ = matrix(N, C);
  lnf_mean_ = vector(N);
  lnf_rstd_ = vector(N);
  probs_ = matrix(N, config.vocab_size);
  losses_ = vector(N);
  dresidual_ = matrix(N, C);
  dln_ = matrix(N, C);
  datty_ = matrix(N, C);
  dqkv_ = matrix(N, 3 * C);
  dfch_ = matrix(N, 4 * C);
  dfch_gelu_ = matrix(N, 4 * C);
  grads.fill(0.0f);
}

void TrainableGPT::init_random(Rng& rng) {
  for (const ParameterSpec& spec : parameter_layout(config_)) {
    float* p = params.data() + spec.offset;
    const bool is_layernorm_scale =
        spec.name.find("ln_") != std::string::npos && spec.name.ends_with(".weight");
    for (std::size_t i = 0; i < spec.size; ++i) {
      p[i] = spec.is_matrix ? 0.02f * rng.normal() : (is_layernorm_scale ? 1.0f : 0.0f);
    }
  }
}

float TrainableGPT::forward(std::span<const TokenId> inputs, std::span<const TokenId> targets,
                            std::size_t B, std::size_t T) {
  if (B == 0 || B > max_batch_ || T == 0 || T > config_.block_size || inputs.size() != B * T ||
      targets.size() != B * T) {
    throw std::invalid_argument("TrainableGPT::forward: batch does not fit the buffers");
  }
  B_ = B, T_ = T;
  inputs_.assign(inputs.begin(), inputs.end());
  targets_.assign(targets.begin(), targets.end());
  const std::size_t N = B * T, C = config_.n_embd, V = config_.vocab_size, NH = config_.n_head;

  ops::encoder_forward(encoded_.data(), inputs_.data(), w_.wte.data(), w_.wpe.data(), B, T, C);
  const float* residual = encoded_.data();  // (N, C) the stream entering each block
  for (std::size_t l = 0; l < config_.n_layer; ++l) {
    const LayerWeights& lw = w_.layers[l];
    Layer& a = layers_[l];
    ops::layernorm_forward(a.ln1.data(), a.ln1_mean.data(), a.ln1_rstd.data(), residual,
                           lw.ln1_w.data(), lw.ln1_b.data(), N, C);
    ops::matmul_forward(a.qkv.data(), a.ln1.data(), lw.qkv_w.data(), lw.qkv_b.data(), N, C, 3 * C);
    ops::attention_forward(a.atty.data(), a.att.data(), a.qkv.data(), B, T, C, NH);
    // residual2 first holds the projection, then the sum with the stream
    ops::matmul_forward(a.residual2.data(), a.atty.data(), lw.attn_proj_w.data(),
                        lw.attn_proj_b.data(), N, C, C);
    ops::residual_forward(a.residual2.data(), residual, a.residual2.data(), N * C);
    ops::layernorm_forward(a.ln2.data(), a.ln2_mean.data(), a.ln2_rstd.data(), a.residual2.data(),
                           lw.ln2_w.data(), lw.ln2_b.data(), N, C);
    ops::matmul_forward(a.fch.data(), a.ln2.data(), lw.fc_w.data(), lw.fc_b.data(), N, C, 4 * C);
    ops::gelu_forward(a.fch_gelu.data(), a.fch.data(), N * 4 * C);
    ops::matmul_forward(a.residual3.data(), a.fch_gelu.data(), lw.fc_proj_w.data(),
                        lw.fc_proj_b.data(), N, 4 * C, C);
    ops::residual_forward(a.residual3.data(), a.residual2.data(), a.residual3.data(), N * C);
    residual = a.residual3.data();
  }
  ops::layernorm_forward(lnf_.data(), lnf_mean_.data(), lnf_rstd_.data(), residual, w_.lnf_w.data(),
                         w_.lnf_b.data(), N, C);
  ops::matmul_forward(probs_.data(), lnf_.data(), w_.wte.data(), nullptr, N, C, V);  // logits
  return ops::crossentropy_forward(losses_.data(), probs_.data(), probs_.data(), targets_.data(), N,
                                   V);
}

void TrainableGPT::backward() {
  const std::size_t B = B_, T = T_, N = B * T, C = config_.n_embd, V = config_.vocab_size;
  const std::size_t NH = config_.n_head;
  if (N == 0) throw std::logic_error("TrainableGPT::backward before forward");
  auto zero = [](Tensor<2>& t, std::size_t n) { std::fill(t.data(), t.data() + n, 0.0f); };

  // loss -> logits (in place over the probabilities) -> final LayerNorm
  ops::crossentropy_backward(probs_.data(), probs_.data(), targets_.data(), N, V);
  zero(dln_, N * C);
  ops::matmul_backward(dln_.data(), g_.wte.data(), nullptr, probs_.data(), lnf_.data(),
                       w_.wte.data(), N, C, V);
  zero(dresidual_, N * C);
  const float* last = layers_.back().residual3.data();
  ops::layernorm_backward(dresidual_.data(), g_.lnf_w.data(), g_.lnf_b.data(), dln_.data(), last,
                          w_.lnf_w.data(), lnf_mean_.data(), lnf_rstd_.data(), N, C);

  // Through the blocks, last to first. dresidual_ is the gradient of the stream;
  // a residual connection passes it unchanged to both branches (ops::residual_backward),
  // so each branch reads dresidual_ as its output gradient and the branch's
  // input gradient is added back into dresidual_.
  for (std::size_t l = config_.n_layer; l-- > 0;) {
    const LayerWeights& lw = w_.layers[l];
    LayerWeights& lg = g_.layers[l];
    Layer& a = layers_[l];
    const float* residual = l == 0 ? encoded_.data() : layers_[l - 1].residual3.data();

    // MLP half: residual3 = residual2 + proj(gelu(fc(ln_2(residual2))))
    zero(dfch_gelu_, N * 4 * C);
    ops::matmul_backward(dfch_gelu_.data(), lg.fc_proj_w.data(), lg.fc_proj_b.data(),
                         dresidual_.data(), a.fch_gelu.data(), lw.fc_proj_w.data(), N, 4 * C, C);
    zero(dfch_, N * 4 * C);
    ops::gelu_backward(dfch_.data(), a.fch.data(), dfch_gelu_.data(), N * 4 * C);
    zero(dln_, N * C);
    ops::matmul_backward(dln_.data(), lg.fc_w.data(), lg.fc_b.data(), dfch_.data(), a.ln2.data(),
                         lw.fc_w.data(), N, C, 4 * C);
    ops::layernorm_backward(dresidual_.data(), lg.ln2_w.data(), lg.ln2_b.data(), dln_.data(),
                            a.residual2.data(), lw.ln2_w.data(), a.ln2_mean.data(),
                            a.ln2_rstd.data(), N, C);

    // attention half: residual2 = residual + proj(attention(ln_1(residual)))
    zero(datty_, N * C);
    ops::matmul_backward(datty_.data(), lg.attn_proj_w.data(), lg.attn_proj_b.data(),
                         dresidual_.data(), a.atty.data(), lw.attn_proj_w.data(), N, C, C);
    zero(dqkv_, N * 3 * C);
    ops::attention_backward(dqkv_.data(), datty_.data(), a.qkv.data(), a.att.data(), B, T, C, NH);
    zero(dln_, N * C);
    ops::matmul_backward(dln_.data(), lg.qkv_w.data(), lg.qkv_b.data(), dqkv_.data(), a.ln1.data(),
                         lw.qkv_w.data(), N, C, 3 * C);
    ops::layernorm_backward(dresidual_.data(), lg.ln1_w.data(), lg.ln1_b.data(), dln_.data(),
                            residual, lw.ln1_w.data(), a.ln1_mean.data(), a.ln1_rstd.data(), N, C);
  }
  ops::encoder_backward(g_.wte.data(), g_.wpe.data(), dresidual_.data(), inputs_.data(), B, T, C);
}

}  // namespace tang
