#include "09_inside/inside_view.hpp"

#include <algorithm>
#include <stdexcept>

namespace tang {

namespace {

void check_arguments(const GPTConfig& cfg, std::span<const TokenId> tokens,
                     const Activations& acts) {
  if (tokens.empty() || tokens.size() > cfg.block_size)
    throw std::invalid_argument("look_inside: needs 1 to block_size tokens");
  if (acts.layers.empty() || acts.layers.front().att.size() == 0)
    throw std::invalid_argument("look_inside: the activations must keep everything");
}

}  // namespace

InsideView look_inside(const GPT& model, std::span<const TokenId> tokens, Activations& acts) {
  const GPTConfig& cfg = model.config();
  check_arguments(cfg, tokens, acts);
  forward(model, tokens, acts);
  InsideView v;
  v.T = tokens.size(), v.L = cfg.n_layer, v.NH = cfg.n_head, v.C = cfg.n_embd;
  const std::size_t T = v.T, C = v.C;
  v.attention.resize(v.L * v.NH * T * T);
  v.residuals.resize((v.L + 1) * T * C);
  std::copy_n(acts.encoded.data(), T * C, v.residuals.begin());  // (T, C) embeddings
  for (std::size_t l = 0; l < v.L; ++l) {
    const Activations::Layer& layer = acts.layers[l];
    // att holds (B = 1, NH, T, T) for this T: row t of head h at (h T + t) T
    std::copy_n(layer.att.data(), v.NH * T * T, v.attention.begin() + l * v.NH * T * T);
    std::copy_n(layer.residual3.data(), T * C, v.residuals.begin() + (l + 1) * T * C);
  }
  return v;
}

}  // namespace tang
