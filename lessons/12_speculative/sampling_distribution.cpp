#include "12_speculative/sampling_distribution.hpp"

#include <algorithm>

#include "03_topk_topp/exercise/top_p.hpp"  // exercise 03: top_p_filter
#include "03_topk_topp/sampler.hpp"

namespace tang {

void to_sampling_distribution(std::span<float> logits, const SamplingSettings& s,
                              const Constraint& constraint) {
  if (constraint) constraint(logits);  // lesson 05: banned characters become -inf
  if (s.temperature == 0.0f) {         // greedy: the argmax, with certainty
    const TokenId best = argmax(logits);
    std::fill(logits.begin(), logits.end(), 0.0f);
    logits[static_cast<std::size_t>(best)] = 1.0f;
    return;
  }
  const float max = largest_value(logits);
  for (float& z : logits) z = (z - max) / s.temperature;  // as sample_next scales them
  if (s.top_k > 0) top_k_filter(logits, s.top_k);
  softmax_in_place(logits);
  if (s.top_p < 1.0f) top_p_filter(logits, s.top_p);
}

}  // namespace tang
