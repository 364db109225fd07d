// dropout.hpp: dropout on the residual stream, for training only.
//
// Each output of a dropped site is set to zero with probability p and the rest
// are scaled by 1 / (1 - p), so every output keeps its expected value
// (Srivastava et al., 2014). A model trained this way cannot lean on any one
// unit, which narrows the gap between training and held-out loss. The sites
// are the ones GPT-2 drops: the embeddings (site 0) and the output of each
// block's attention half (1 + 2l) and MLP half (2 + 2l), before they are added
// to the residual stream. Writing never drops anything: forward() is given no
// Dropout there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tensor.hpp"

namespace tang {

class Dropout {
 public:
  // Room for n_layer blocks of up to n values per site.
  Dropout(float p, std::size_t n_layer, std::size_t n);

  // The masks of one forward pass come from this seed; the same seed gives the
  // same masks (a gradient check runs one pass many times).
  void reseed(std::uint64_t seed) { seed_ = seed; }

  // x (n) *= this pass's mask at `site`, drawn now and kept for backward.
  void apply(float* x, std::size_t n, std::size_t site);
  // dx (n) *= the mask apply() used at `site`: dropout's own backward.
  void backward(float* dx, std::size_t n, std::size_t site) const;

  float p() const { return p_; }

 private:
  float p_;
  std::uint64_t seed_ = 0;
  Tensor<2> masks_;  // (sites, n) each 0 or 1 / (1 - p)
};

}  // namespace tang
