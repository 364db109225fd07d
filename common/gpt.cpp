#include "gpt.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "attention_inputs.hpp"
#include "dropout.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace tang {

GPT::GPT(GPTConfig config, Tokenizer tokenizer, Tensor<1> parameters)
    : config_(config),
      tokenizer_(std::move(tokenizer)),
      parameters_(std::move(parameters)),
      weights_(bind_weights(config_, parameters_.data())) {
  config_.validate();
  if (tokenizer_.size() != config_.vocab_size) {
    throw std::invalid_argument("tokenizer size does not match the config's vocabulary size");
  }
  if (parameters_.size() != parameter_count(config_)) {
    throw std::invalid_argument("parameter buffer does not match the config");
  }
}

GPT::GPT(GPT&& other) noexcept
    : config_(other.config_),
      tokenizer_(std::move(other.tokenizer_)),
      parameters_(std::move(other.parameters_)),
      weights_(bind_weights(config_, parameters_.data())) {}

GPT initialised_model(const GPTConfig& config, Tokenizer tokenizer, std::uint64_t seed) {
  Rng rng(seed);
  Tensor<1> parameters = Tensor<1>::from_shape({parameter_count(config)});
  initialise_parameters(config, parameters.data(), rng);
  return GPT(config, std::move(tokenizer), std::move(parameters));
}

const Kernels kPlainKernels = {ops::matmul_forward, ops::attention_forward, ops::layernorm_forward,
                               ops::gelu_forward};

Activations::Activations(const GPTConfig& c, std::size_t max_batch_, Keep keep)
    : max_batch(max_batch_) {
  const std::size_t N = max_batch * c.block_size, C = c.n_embd, T = c.block_size;
  const std::size_t att_size = keep == Keep::kEverything ? max_batch * c.n_head * T * T : 0;
  const std::size_t logit_rows = keep == Keep::kEverything ? N : 1;
  // What it all takes, before allocating any of it: a model file's config can
  // ask for far more than a machine has.
  const bool multi_head = c.attention() == Attention::kMultiHead;
  const std::size_t P = multi_head ? 0 : c.proj_width(),
                    latent = c.attention() == Attention::kLatent ? c.kv_latent : 0;
  const std::size_t kv = latent > 0 ? 2 * C : 0;
  const double floats =
      static_cast<double>(N) * C * (2 + 16 * static_cast<double>(c.n_layer)) +
      static_cast<double>(N) * static_cast<double>(c.n_layer) * (P + latent + kv) +
      static_cast<double>(c.n_layer) * att_size + static_cast<double>(logit_rows) * c.vocab_size;
  const double bytes = floats * sizeof(float);
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  if (memory > 0 && bytes > 0.8 * memory) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "running this model needs %.1f GB of activations (%s, batch %zu), more than "
                  "this machine's %.1f GB of memory: use a smaller model",
                  bytes / 1e9, c.describe().c_str(), max_batch, memory / 1e9);
    throw UserError(text);
  }
  auto matrix = [](std::size_t rows, std::size_t cols) {
    return Tensor<2>::from_shape({rows, cols});
  };
  auto vector = [](std::size_t n) { return Tensor<1>::from_shape({n}); };
  encoded = matrix(N, C);
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    layers.push_back({matrix(N, C), vector(N), vector(N), matrix(N, 3 * C), vector(att_size),
                      matrix(N, C), matrix(N, C), matrix(N, C), vector(N), vector(N),
                      matrix(N, 4 * C), matrix(N, 4 * C), matrix(N, C), matrix(P > 0 ? N : 0, P),
                      matrix(latent > 0 ? N : 0, latent), matrix(kv > 0 ? N : 0, kv)});
  }
  lnf = matrix(N, C);
  lnf_mean = vector(N);
  lnf_rstd = vector(N);
  logits = matrix(logit_rows, c.vocab_size);
}

View<2> forward(const GPTConfig& cfg, const GPTWeights& w, std::span<const TokenId> tokens,
                std::size_t B, std::size_t T, Activations& a, const Kernels& k, LogitsFor which,
                Dropout* dropout) {
  const std::size_t N = B * T, C = cfg.n_embd, V = cfg.vocab_size, NH = cfg.n_head;
  if (B == 0 || T == 0 || tokens.size() != N) throw std::invalid_argument("forward: no tokens");
  if (T > cfg.block_size) throw std::invalid_argument("forward: text longer than the context");
  if (B > a.max_batch) throw std::invalid_argument("forward: batch larger than the activations");
  if (which == LogitsFor::kLastPosition && B != 1)
    throw std::invalid_argument("forward: last-position logits are for one sequence");
  if (which == LogitsFor::kAllPositions && a.logits.shape(0) < N)
    throw std::invalid_argument("forward: all positions' logits need Keep::kEverything");
  for (TokenId id : tokens) {
    if (id < 0 || static_cast<std::size_t>(id) >= V)
      throw std::invalid_argument("forward: token id out of range");
  }

  ops::encoder_forward(a.encoded.data(), tokens.data(), w.wte, w.wpe, B, T, C);
  if (dropout) dropout->apply(a.encoded.data(), N * C, 0);
  const float* x = a.encoded.data();  // (N, C) the residual stream entering each block
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = w.layers[l];
    Activations::Layer& L = a.layers[l];
    // attention half: residual2 = x + proj(attention(ln_1(x)))
    k.layernorm(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), x, lw.ln1_w, lw.ln1_b, N, C);
    attention_inputs_forward(cfg, lw, L, N, k);  // (N, 3C): ln_1(x) @ qkv_w^T for multi-head
    k.attention(L.atty.data(), L.att.size() > 0 ? L.att.data() : nullptr, L.qkv.data(), B, T, C,
                NH);
    k.matmul(L.residual2.data(), L.atty.data(), lw.attn_proj_w, lw.attn_proj_b, N, C, C);
    if (dropout) dropout->apply(L.residual2.data(), N * C, 1 + 2 * l);
    ops::residual_forward(L.residual2.data(), x, L.residual2.data(), N * C);
    // MLP half: residual3 = residual2 + proj(gelu(fc(ln_2(residual2))))
    k.layernorm(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), L.residual2.data(), lw.ln2_w,
                lw.ln2_b, N, C);
    k.matmul(L.fch.data(), L.ln2.data(), lw.fc_w, lw.fc_b, N, C, 4 * C);
    k.gelu(L.fch_gelu.data(), L.fch.data(), N * 4 * C);
    k.matmul(L.residual3.data(), L.fch_gelu.data(), lw.fc_proj_w, lw.fc_proj_b, N, 4 * C, C);
    if (dropout) dropout->apply(L.residual3.data(), N * C, 2 + 2 * l);
    ops::residual_forward(L.residual3.data(), L.residual2.data(), L.residual3.data(), N * C);
    x = L.residual3.data();
  }

  // final LayerNorm, then the tied output layer: logits = ln_f(x) @ wte^T
  const std::size_t first = which == LogitsFor::kLastPosition ? T - 1 : 0;
  const std::size_t rows = N - first;
  k.layernorm(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), x, w.lnf_w, w.lnf_b, N, C);
  k.matmul(a.logits.data(), a.lnf.data() + first * C, w.wte, nullptr, rows, C, V);
  return view_of<2>(a.logits.data(), {rows, V});
}

View<2> forward(const GPT& model, std::span<const TokenId> tokens, Activations& acts,
                LogitsFor which) {
  return forward(model.config(), model.weights(), tokens, 1, tokens.size(), acts, kPlainKernels,
                 which);
}

}  // namespace tang
