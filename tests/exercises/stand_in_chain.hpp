// stand_in_chain.hpp: a Markov chain of 8 characters that stands in for a model
// (p) and for a drafter (q) in lesson 12's sampling tests: the next character's
// distribution depends on the last one only, so the probability of any text is
// known exactly.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "rng.hpp"

namespace tang::testing {

constexpr std::size_t kChainV = 8;
using ChainTable = std::array<std::array<float, kChainV>, kChainV>;  // [previous][next]

// Each row a softmax of normal draws times `sharpness` (larger: surer rows).
inline ChainTable random_chain(Rng& rng, float sharpness) {
  ChainTable t{};
  for (auto& row : t) {
    float total = 0;
    for (float& x : row) total += x = std::exp(sharpness * rng.normal());
    for (float& x : row) x /= total;
  }
  return t;
}

// Pearson's statistic of `seen` pairs (a * kChainV + b: the first two characters
// written after the character 0) against the chain's own probabilities of them,
// and its degrees of freedom (the pairs the chain can write, less one). A pair
// the chain never writes, written, makes it infinite.
struct PairStatistic {
  double chi = 0;
  double df = -1;
};

inline PairStatistic chi_square_of_pairs(const std::vector<double>& seen, const ChainTable& p) {
  double draws = 0;
  for (const double n : seen) draws += n;
  PairStatistic s;
  for (std::size_t a = 0; a < kChainV; ++a) {
    for (std::size_t b = 0; b < kChainV; ++b) {
      const double expected = draws * p[0][a] * p[a][b], n = seen[a * kChainV + b];
      if (expected == 0) {
        if (n > 0) s.chi = INFINITY;
        continue;
      }
      s.chi += (n - expected) * (n - expected) / expected;
      s.df += 1;
    }
  }
  return s;
}

}  // namespace tang::testing
