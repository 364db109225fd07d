#include "sampling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>

namespace tang {

float largest_value(std::span<const float> values) {
  // Eight running maxima, one for each eighth of a block of eight, then the largest of
  // them: the same answer as one running maximum (max is exact, in any order), but the
  // CPU need not wait for each comparison before the next.
  std::array<float, 8> best;
  best.fill(values[0]);
  std::size_t i = 0;
  for (; i + best.size() <= values.size(); i += best.size()) {
    for (std::size_t k = 0; k < best.size(); ++k) best[k] = std::max(best[k], values[i + k]);
  }
  for (; i < values.size(); ++i) best[0] = std::max(best[0], values[i]);
  return *std::max_element(best.begin(), best.end());
}

void softmax_in_place(std::span<float> logits) {
  // The NumPy of it:  z = exp(z - z.max());  z /= z.sum()
  auto z = xt::adapt(logits.data(), logits.size(), xt::no_ownership(),
                     std::array<std::size_t, 1>{logits.size()});
  const float max = largest_value(logits);
  // exp(-inf) is 0: banned characters (top-k, masks) skip the call, which is
  // slow for -inf, and the addition, which would add nothing. The total in a
  // plain loop rather than xt::sum: its order of additions is then fixed (left
  // to right) on every machine, and so is every probability.
  constexpr float kBanned = -std::numeric_limits<float>::infinity();
  float total = 0.0f;
  for (float& p : logits) {
    if (p == kBanned) {
      p = 0.0f;
    } else {
      p = std::exp(p - max);
      total += p;
    }
  }
  z /= total;
}

TokenId argmax(std::span<const float> values) {
  return static_cast<TokenId>(std::max_element(values.begin(), values.end()) - values.begin());
}

}  // namespace tang
