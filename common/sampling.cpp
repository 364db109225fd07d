#include "sampling.hpp"

#include <algorithm>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>

namespace tang {

void softmax_in_place(std::span<float> logits) {
  // The NumPy of it:  z = exp(z - z.max());  z /= z.sum()
  auto z = xt::adapt(logits.data(), logits.size(), xt::no_ownership(),
                     std::array<std::size_t, 1>{logits.size()});
  const float max = *std::max_element(logits.begin(), logits.end());
  xt::noalias(z) = xt::exp(z - max);  // element by element, so in place is safe
  // The total in a plain loop rather than xt::sum: its order of additions is
  // then fixed (left to right) on every machine, and so is every probability.
  float total = 0.0f;
  for (const float p : logits) total += p;
  z /= total;
}

TokenId argmax(std::span<const float> values) {
  return static_cast<TokenId>(std::max_element(values.begin(), values.end()) - values.begin());
}

}  // namespace tang
