// inside_view.hpp: one forward pass over a text, keeping what lesson 09 looks
// at: every head's attention weights and the residual stream after every block.
//
// Nothing here changes the model: it is common/gpt.hpp's forward with
// Keep::kEverything, which already fills both (the trainer reads them back in
// its backward pass); this file only copies them out in the shapes below.
#pragma once

#include <span>
#include <vector>

#include "gpt.hpp"

namespace tang {

struct InsideView {
  std::size_t T = 0, L = 0, NH = 0, C = 0;
  std::vector<float> attention;  // (L, NH, T, T) row t: position t's weights over 0 .. t
  std::vector<float> residuals;  // (L + 1, T, C) the stream after the embeddings, then each block

  // Head h of layer l (both 0-based): (T, T).
  std::span<const float> weights(std::size_t l, std::size_t h) const {
    return {attention.data() + (l * NH + h) * T * T, T * T};
  }
  // Position t's stream after stage s: s = 0 the embeddings, s = l + 1 block l. (C)
  std::span<const float> residual(std::size_t s, std::size_t t) const {
    return {residuals.data() + (s * T + t) * C, C};
  }
};

// Runs `tokens` (at most the context) through the model in one window. `acts`
// must keep everything (Keep::kEverything); reuse it across calls.
InsideView look_inside(const GPT& model, std::span<const TokenId> tokens, Activations& acts);

}  // namespace tang
