// random_distributions.hpp: the random test distributions of exercises 03 and
// 03b, five kinds in turn (trial % 5): peaked, nearly flat, many ties, zeros
// (as after top-k) and clusters. One in ten trials has up to `large`
// characters, the others up to 300.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "rng.hpp"
#include "sampling.hpp"

namespace tang::testing {

inline std::vector<float> random_distribution(Rng& rng, int trial, std::size_t large) {
  const std::size_t n = 1 + rng.below(trial % 10 == 0 ? large : 300);
  std::vector<float> probabilities(n);
  const int kind = trial % 5;
  for (float& z : probabilities) {
    if (kind == 0) z = rng.normal() * 3.0f;                                     // peaked
    if (kind == 1) z = rng.normal() * 0.05f;                                    // nearly flat
    if (kind == 2) z = static_cast<float>(rng.below(4));                        // many ties
    if (kind == 3) z = rng.uniform() < 0.5f ? -INFINITY : rng.normal();         // zeros (top-k)
    if (kind == 4) z = static_cast<float>(rng.below(3)) + 0.1f * rng.normal();  // clusters
  }
  if (kind == 3) probabilities[rng.below(n)] = 0.0f;  // at least one finite
  softmax_in_place(probabilities);
  return probabilities;
}

}  // namespace tang::testing
