#include "top_k_top_p.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "next_char.hpp"
#include "temperature.hpp"

namespace tang {

void top_k_filter(std::span<float> logits, std::size_t k, std::vector<float>& sorted) {
  if (k == 0 || k >= logits.size()) return;
  sorted.assign(logits.begin(), logits.end());
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k - 1),
                   sorted.end(), std::greater<float>());
  const float kth = sorted[k - 1];
  for (float& z : logits) {
    if (z < kth) z = -std::numeric_limits<float>::infinity();
  }
}

namespace {

// Sorts the candidates in `order` by probability, finds the nucleus, zeroes
// everything outside it and renormalises what is left.
void keep_nucleus(std::span<float> probabilities, float p, std::vector<TokenId>& order) {
  const auto prob = [&](TokenId id) { return probabilities[static_cast<std::size_t>(id)]; };
  std::sort(order.begin(), order.end(),
            [&](TokenId a, TokenId b) { return prob(a) != prob(b) ? prob(a) > prob(b) : a < b; });
  double total = 0.0;
  std::size_t keep = order.size();
  for (std::size_t i = 0; i < order.size(); ++i) {
    total += prob(order[i]);
    if (total >= p) {
      keep = i + 1;
      break;
    }
  }
  // The nucleus is everything that sorts before or at its last member.
  const TokenId last = order[keep - 1];
  const float last_p = prob(last);
  float kept = 0.0f;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const bool in = probabilities[i] > last_p ||
                    (probabilities[i] == last_p && static_cast<TokenId>(i) <= last);
    if (in) {
      kept += probabilities[i];
    } else {
      probabilities[i] = 0.0f;
    }
  }
  for (float& q : probabilities) q /= kept;
}

}  // namespace

void top_p_filter(std::span<float> probabilities, float p, std::vector<TokenId>& order) {
  if (p >= 1.0f) return;
  order.resize(probabilities.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<TokenId>(i);
  keep_nucleus(probabilities, p, order);
}

void top_p_filter_with_cutoff(std::span<float> probabilities, float p,
                              std::vector<TokenId>& order) {
  if (p >= 1.0f) return;
  const std::size_t n = probabilities.size();
  // If at least one character is at or above the cut-off, the (at most n-1)
  // characters below it hold less than (n-1) * cutoff = 1 - p together, so the
  // ones above already reach p and the nucleus never needs the small ones.
  const float cutoff = n > 1 ? (1.0f - p) / static_cast<float>(n - 1) : 0.0f;
  order.clear();
  double candidates = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (probabilities[i] >= cutoff) {
      order.push_back(static_cast<TokenId>(i));
      candidates += probabilities[i];
    }
  }
  // The bound can be too tight (e.g. a flat distribution leaves no candidate):
  // when the candidates cannot reach p, sort everything instead.
  if (candidates < p) {
    top_p_filter(probabilities, p, order);
    return;
  }
  keep_nucleus(probabilities, p, order);
}

TokenId sample_next(std::span<float> logits, const SamplingSettings& s, Rng& rng,
                    SamplerScratch& scratch) {
  if (s.temperature == 0.0f) return argmax(logits);
  apply_temperature(logits, s.temperature);
  top_k_filter(logits, s.top_k, scratch.values);
  softmax_in_place(logits);
  top_p_filter_with_cutoff(logits, s.top_p, scratch.order);
  return sample_from(logits, rng.uniform());
}

}  // namespace tang
