#include "dropout.hpp"

#include <stdexcept>

#include "rng.hpp"

namespace tang {

Dropout::Dropout(float p, std::size_t n_layer, std::size_t n)
    : p_(p), masks_(Tensor<2>::from_shape({1 + 2 * n_layer, n})) {
  if (!(p >= 0.0f && p < 1.0f)) throw std::invalid_argument("Dropout: p must be in [0, 1)");
}

void Dropout::apply(float* x, std::size_t n, std::size_t site) {
  if (site >= masks_.shape(0) || n > masks_.shape(1)) {
    throw std::invalid_argument("Dropout::apply: site or size beyond the masks");
  }
  // One stream per site, so a site's mask does not depend on the others.
  Rng rng(seed_ + 0x9E3779B97F4A7C15ull * (site + 1));
  const float keep_scale = 1.0f / (1.0f - p_);
  float* mask = masks_.data() + site * masks_.shape(1);
  for (std::size_t i = 0; i < n; ++i) {
    mask[i] = rng.uniform() < p_ ? 0.0f : keep_scale;
    x[i] *= mask[i];
  }
}

void Dropout::backward(float* dx, std::size_t n, std::size_t site) const {
  const float* mask = masks_.data() + site * masks_.shape(1);
  for (std::size_t i = 0; i < n; ++i) dx[i] *= mask[i];
}

}  // namespace tang
