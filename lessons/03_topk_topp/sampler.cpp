#include "03_topk_topp/sampler.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>
#include <xtensor/xadapt.hpp>

#include "number_text.hpp"  // label
#include "trace.hpp"

namespace tang {

void top_k_filter(std::span<float> logits, std::size_t k) {
  if (k == 0 || k >= logits.size()) return;
  // The k largest, largest first: the last of them is the k-th largest.
  // partial_sort_copy looks at each logit once, against the smallest of the
  // k kept so far, and sorts only those k.
  std::vector<float> largest(k);
  std::partial_sort_copy(logits.begin(), logits.end(), largest.begin(), largest.end(),
                         std::greater<float>());
  const float kth = largest.back();
  for (float& z : logits) {
    if (z < kth) z = -std::numeric_limits<float>::infinity();
  }
}

TokenId sample_next(std::span<float> logits, const SamplingSettings& s, Rng& rng,
                    StepRecord* record, const Constraint& constraint) {
  if (record) record->begin(logits, s.temperature);  // --trace: what this step does
  if (constraint) {
    constraint(logits);  // lesson 05: banned characters become -inf
    if (record) record->removed_logits("mask", logits);
  }
  if (s.temperature == 0.0f) {
    const TokenId best = argmax(logits);
    if (record) record->drawn(-1.0f, best);
    return best;
  }
  auto z = xt::adapt(logits.data(), logits.size(), xt::no_ownership(),
                     std::array<std::size_t, 1>{logits.size()});
  const float max = largest_value(logits);
  z = (z - max) / s.temperature;  // minus the largest first: no overflow for any T > 0
  if (s.top_k > 0) {
    top_k_filter(logits, s.top_k);
    if (record) record->removed_logits("top-k " + std::to_string(s.top_k), logits);
  }
  softmax_in_place(logits);
  if (s.top_p < 1.0f) {             // 1 = off
    top_p_filter(logits, s.top_p);  // exercise 03
    if (record) record->removed_probabilities("top-p " + label(s.top_p), logits);
  }
  const float coin = rng.uniform();
  const TokenId next = sample_from(logits, coin);  // exercise 02
  if (record) record->drawn(coin, next);
  return next;
}

Picker sampling_picker(const SamplingSettings& settings) {
  return [settings](std::span<float> logits, std::size_t, Rng& rng, StepRecord* record) {
    return sample_next(logits, settings, rng, record);
  };
}

SamplingSettings writing_settings(const LessonOptions& options) {
  return {options.temperature.value_or(0.8f), options.top_k, 1.0f};
}

}  // namespace tang
