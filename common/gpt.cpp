#include "gpt.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "ops.hpp"
#include "vector_math.hpp"

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

KVCache::KVCache(const GPTConfig& config)
    : k(Tensor<3>::from_shape({config.n_layer, config.block_size, config.n_embd})),
      v(Tensor<3>::from_shape({config.n_layer, config.block_size, config.n_embd})) {}

std::size_t kv_cache_bytes_per_position(const GPTConfig& config) {
  return 2 * config.n_layer * config.n_embd * sizeof(float);
}

ForwardState::ForwardState(const GPTConfig& c)
    : x(Tensor<2>::from_shape({c.block_size, c.n_embd})),
      xn(Tensor<2>::from_shape({c.block_size, c.n_embd})),
      qkv(Tensor<2>::from_shape({c.block_size, 3 * c.n_embd})),
      att(Tensor<2>::from_shape({c.block_size, c.n_embd})),
      hidden(Tensor<2>::from_shape({c.block_size, 4 * c.n_embd})),
      mlp(Tensor<2>::from_shape({c.block_size, 4 * c.n_embd})),
      scores(Tensor<1>::from_shape({c.block_size})),
      logits(Tensor<2>::from_shape({c.block_size, c.vocab_size})) {}

void cached_attention(float* out, const float* qkv, const float* k_cache, const float* v_cache,
                      std::size_t T, std::size_t start, std::size_t C, std::size_t NH,
                      float* scores) {
  const std::size_t HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t visible = start + t + 1;  // positions 0 .. start+t
    for (std::size_t h = 0; h < NH; ++h) {
      const float* q = qkv + t * 3 * C + h * HS;  // (HS)
      for (std::size_t j = 0; j < visible; ++j) {
        const float* k = k_cache + j * C + h * HS;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (std::size_t i = 0; i < HS; ++i) dot += q[i] * k[i];
        scores[j] = dot * scale;
      }
      const float max = max_of(scores, visible);
      const float sum = exp_minus_max_and_sum(scores, scores, visible, max);
      float* o = out + t * C + h * HS;  // (HS)
      std::fill(o, o + HS, 0.0f);
      for (std::size_t j = 0; j < visible; ++j) {
        const float* v = v_cache + j * C + h * HS;
        const float p = scores[j] / sum;
        for (std::size_t i = 0; i < HS; ++i) o[i] += p * v[i];
      }
    }
  }
}

View<2> forward(const GPT& model, std::span<const TokenId> tokens, std::size_t start,
                KVCache& cache, ForwardState& s, LogitsFor which) {
  const GPTConfig& cfg = model.config();
  const GPTWeights& w = model.weights();
  const std::size_t T = tokens.size(), C = cfg.n_embd, V = cfg.vocab_size;
  if (T == 0) throw std::invalid_argument("forward: no tokens");
  if (start != cache.length) throw std::invalid_argument("forward: start must equal cache.length");
  if (start + T > cfg.block_size)
    throw std::invalid_argument("forward: text longer than the context");
  for (TokenId id : tokens) {
    if (id < 0 || static_cast<std::size_t>(id) >= V)
      throw std::invalid_argument("forward: token id out of range");
  }

  float* x = s.x.data();  // (T, C)
  ops::encoder_forward(x, tokens.data(), w.wte.data(), w.wpe.data(), 1, T, C, start);

  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = w.layers[l];
    // attention half: x += proj(attention(ln_1(x)))
    ops::layernorm_forward(s.xn.data(), nullptr, nullptr, x, lw.ln1_w.data(), lw.ln1_b.data(), T,
                           C);
    ops::matmul_forward(s.qkv.data(), s.xn.data(), lw.qkv_w.data(), lw.qkv_b.data(), T, C, 3 * C);
    // append the new keys and values to this layer's cache, at positions start..start+T-1
    float* k_cache = &cache.k(l, 0, 0);  // (T_max, C)
    float* v_cache = &cache.v(l, 0, 0);  // (T_max, C)
    for (std::size_t t = 0; t < T; ++t) {
      const float* row = s.qkv.data() + t * 3 * C;
      std::memcpy(k_cache + (start + t) * C, row + C, C * sizeof(float));
      std::memcpy(v_cache + (start + t) * C, row + 2 * C, C * sizeof(float));
    }
    cached_attention(s.att.data(), s.qkv.data(), k_cache, v_cache, T, start, C, cfg.n_head,
                     s.scores.data());
    ops::matmul_forward(s.xn.data(), s.att.data(), lw.attn_proj_w.data(), lw.attn_proj_b.data(), T,
                        C, C);
    ops::residual_forward(x, x, s.xn.data(), T * C);
    // MLP half: x += proj(gelu(fc(ln_2(x))))
    ops::layernorm_forward(s.xn.data(), nullptr, nullptr, x, lw.ln2_w.data(), lw.ln2_b.data(), T,
                           C);
    ops::matmul_forward(s.hidden.data(), s.xn.data(), lw.fc_w.data(), lw.fc_b.data(), T, C, 4 * C);
    ops::gelu_forward(s.mlp.data(), s.hidden.data(), T * 4 * C);
    ops::matmul_forward(s.xn.data(), s.mlp.data(), lw.fc_proj_w.data(), lw.fc_proj_b.data(), T,
                        4 * C, C);
    ops::residual_forward(x, x, s.xn.data(), T * C);
  }
  cache.length = start + T;

  // final LayerNorm, then the tied output layer: logits = xn @ wte^T
  const std::size_t first = which == LogitsFor::kLastPosition ? T - 1 : 0;
  const std::size_t rows = T - first;
  ops::layernorm_forward(s.xn.data(), nullptr, nullptr, x + first * C, w.lnf_w.data(),
                         w.lnf_b.data(), rows, C);
  ops::matmul_forward(s.logits.data(), s.xn.data(), w.wte.data(), nullptr, rows, C, V);
  return view_of<2>(s.logits.data(), {rows, V});
}

}  // namespace tang
