#include "11_server/tuned_draw.hpp"

namespace tang {

TokenId TunedDraw::operator()(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                              StepRecord* record, const Constraint& constraint) {
  scaled_.clear();
  if (record) return sample_next(logits, settings, rng, record, constraint);
  if (constraint) constraint(logits);  // lesson 05: banned characters become -inf
  const TokenId drawn = fast::sample_next(logits, settings, rng, scratch_);
  // what fast::sample_next leaves in `logits` with a small top-k: every logit at
  // the temperature, before the filters
  const bool scaled_left = settings.temperature > 0.0f && settings.top_k > 0 &&
                           settings.top_k < logits.size() && settings.top_k <= fast::kFewKept;
  if (keep_scaled_ && scaled_left && !constraint) scaled_.assign(logits.begin(), logits.end());
  return drawn;
}

}  // namespace tang
