// sampler.hpp: the full sampling step of lessons 03-06.
//
//   [constraint masks, lesson 05] -> temperature -> top-k -> softmax -> top-p -> one coin
//
// Temperature is applied as (z - max) / T: the same distribution as z / T,
// and it works for any T > 0 (1e-40 included, where z / T would overflow).
//
// top-k is top_k.hpp; top-p is exercise 03 and the draw exercise 02, so the
// lessons run whichever code this build compiled (the reference solutions, or
// yours under the `learner` preset).
#pragma once

#include <span>

#include "exercise/sample_with_temperature.hpp"  // exercise 02: sample_from
#include "exercise/top_p.hpp"                    // exercise 03: top_p_filter
#include "generate.hpp"
#include "options.hpp"
#include "rng.hpp"
#include "sampling.hpp"

namespace tang {

// The exercise functions the step calls: yours (tang::mine, exercises 03 and 02) unless
// told otherwise; the learner build also runs the step with the reference solutions'
// (kReferenceDraw) to find where your text parts from theirs (common/reference_check.hpp).
struct DrawFunctions {
  void (*top_p_filter)(std::span<float> probabilities, float p) = mine::top_p_filter;
  TokenId (*sample_from)(std::span<const float> probabilities, float coin) = mine::sample_from;
};
inline constexpr DrawFunctions kReferenceDraw{reference::top_p_filter, reference::sample_from};

// The step above, overwriting `logits` (with the probabilities it drew from).
// Temperature 0 is greedy (argmax).
TokenId sample_next(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                    const DrawFunctions& use = {});

// A Picker (generate.hpp) that samples with `settings`.
Picker sampling_picker(const SamplingSettings& settings, const DrawFunctions& use = {});

// In the learner build: the same picker, checked against the reference solutions at
// every step (a note names the first character where yours chose otherwise, and why).
// In the default build: sampling_picker(settings), the reference solutions already.
Picker checked_sampling_picker(const SamplingSettings& settings, const Tokenizer& tokenizer);

// How lessons 04-06 write unless flags say otherwise: T = 0.8 with top-k.
SamplingSettings writing_settings(const LessonOptions& options);

}  // namespace tang
