#include "11_server/tuned_draw.hpp"

namespace tang {

TokenId TunedDraw::operator()(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                              StepRecord* record, const Constraint& constraint) {
  scaled_.clear();
  if (record) return sample_next(logits, settings, rng, record, constraint);
  if (constraint) constraint(logits);  // lesson 05: banned characters become -inf
  const TokenId drawn = fast::sample_next(logits, settings, rng, scratch_);
  // a mask's distribution is taken before the mask: what is left is not it
  if (keep_scaled_ && !constraint && fast::leaves_scaled_logits(settings, logits.size()))
    scaled_.assign(logits.begin(), logits.end());
  return drawn;
}

}  // namespace tang
