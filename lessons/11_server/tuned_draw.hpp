// tuned_draw.hpp: the tuned path's draw (poem_server --tuned).
//
// Lesson 03's sampling step, temperature -> top-k -> softmax -> top-p -> coin,
// run by fast::sample_next (common/fast/top_k_top_p.hpp): with the course's
// top-k of 20, two passes over the 7,129 logits in vector lanes (the 20 largest,
// then every logit at the temperature, the kept ones gathered), and the softmax,
// top-p and the coin over the 20 alone. The same character as lesson 03's step
// (tests/fast_test.cpp), so a poem is the same on either draw.
//
// A request that asks for logprobs wants the softmax of all 7,129 logits at its
// temperature: the draw has just computed those logits at the temperature, so it
// keeps them (`scaled()`), and the request's thread starts from there instead
// of computing them again.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "03_topk_topp/sampler.hpp"  // lesson 03: the step it stands in for
#include "fast/top_k_top_p.hpp"

namespace tang {

class TunedDraw {
 public:
  // `keep_scaled`: keep each draw's logits at the temperature (for logprobs).
  explicit TunedDraw(bool keep_scaled) : keep_scaled_(keep_scaled) {}
  // A SampleStep (lesson 03): with a record (--trace) it is lesson 03's step
  // itself, which fills the record in.
  TokenId operator()(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                     StepRecord* record, const Constraint& constraint);
  // The last draw's logits at the temperature, (z - max) / T, before any filter,
  // or empty when it kept none: not asked to, greedy, a mask (its distribution
  // is taken before the mask), or a top-k above fast::kFewKept.
  std::span<const float> scaled() const { return scaled_; }
  std::vector<float> take_scaled() { return std::move(scaled_); }  // and forget them

 private:
  bool keep_scaled_;
  fast::SamplerScratch scratch_;
  std::vector<float> scaled_;
};

}  // namespace tang
