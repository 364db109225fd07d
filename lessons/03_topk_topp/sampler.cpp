#include "03_topk_topp/sampler.hpp"

#include <xtensor/xadapt.hpp>

#include "03_topk_topp/top_k.hpp"
#include "number_text.hpp"  // label
#include "trace.hpp"

namespace tang {

TokenId sample_next(std::span<float> logits, const SamplingSettings& s, Rng& rng) {
  StepTrace* trace = s.trace;  // --trace: report each stage (null: not asked)
  if (trace && !trace->started()) trace->start(logits, s.temperature);
  if (s.temperature == 0.0f) {
    const TokenId best = argmax(logits);
    if (trace) trace->drawn(-1.0f, best);
    return best;
  }
  auto z = xt::adapt(logits.data(), logits.size(), xt::no_ownership(),
                     std::array<std::size_t, 1>{logits.size()});
  const float max = largest_value(logits);
  z = (z - max) / s.temperature;  // minus the largest first: no overflow for any T > 0
  if (s.top_k > 0) {
    top_k_filter(logits, s.top_k);
    if (trace) trace->filtered_logits("top-k " + std::to_string(s.top_k), logits);
  }
  softmax_in_place(logits);
  if (s.top_p < 1.0f) {             // 1 = off
    top_p_filter(logits, s.top_p);  // exercise 03
    if (trace) trace->filtered_probabilities("top-p " + label(s.top_p), logits);
  }
  const float coin = rng.uniform();
  const TokenId next = sample_from(logits, coin);  // exercise 02
  if (trace) trace->drawn(coin, next);
  return next;
}

Picker sampling_picker(const SamplingSettings& settings) {
  return [settings](std::span<float> logits, std::size_t, Rng& rng) {
    return sample_next(logits, settings, rng);
  };
}

SamplingSettings writing_settings(const LessonOptions& options) {
  return {temperature_or(options, 0.8f), options.top_k, 1.0f};
}

}  // namespace tang
