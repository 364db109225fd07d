// min_p_sampler.hpp: the sampling step of section 3's third block (exercise 03b).
//
//   repetition penalty (on the logits) -> temperature -> softmax -> min-p -> one coin
//
// A step of its own beside sampler.hpp's sample_next, which the later lessons
// use and which it leaves alone. The settings are llama.cpp's defaults: a
// penalty of 1.1 on the characters among the last 64 written (its default for
// years; recent versions ship 1.0, off), min-p 0.05.
// The penalty comes first because its rule reads the sign of the model's own
// logits: after subtracting the largest every logit is <= 0, and the most
// likely character's 0 would stay 0. Min-p cuts the distribution after the
// temperature has flattened it (llama.cpp's own default chain divides by the
// temperature last, after min-p: there the cut is measured at T = 1).
//
// The penalty and min-p are exercise 03b, the draw exercise 02, so the block
// runs whichever code this build compiled (the reference solutions, or yours
// under the `learner` preset).
#pragma once

#include <cstddef>
#include <span>

#include "exercise/min_p_penalty.hpp"            // exercise 03b
#include "exercise/sample_with_temperature.hpp"  // exercise 02: sample_from
#include "generate.hpp"
#include "rng.hpp"
#include "tokenizer.hpp"
#include "trace.hpp"

namespace tang {

struct MinPSettings {
  float temperature = 1.5f;    // 0: greedy, on the penalised logits
  float penalty = 1.1f;        // 1: off (llama.cpp's --repeat-penalty)
  std::size_t last_n = 64;     // how many recent characters it looks at (--repeat-last-n)
  float min_p = 0.05f;         // 0: off (llama.cpp's --min-p)
  StepTrace* trace = nullptr;  // --trace: report each step here
};

// For temperature > 0: turns `logits` (V) into the probabilities (V) the coin
// is drawn from, in place: the penalty on the ids in `recent`, then
// (z - max) / T, softmax, min-p.
// The exercise functions the step calls: yours unless told otherwise (as in sampler.hpp's
// DrawFunctions; the learner build also runs the step with kReferenceMinP).
struct MinPFunctions {
  void (*repetition_penalty)(std::span<float>, std::span<const TokenId>,
                             float) = mine::repetition_penalty;
  void (*min_p_filter)(std::span<float>, float) = mine::min_p_filter;
  TokenId (*sample_from)(std::span<const float>, float) = mine::sample_from;
};
inline constexpr MinPFunctions kReferenceMinP{reference::repetition_penalty,
                                              reference::min_p_filter, reference::sample_from};

void min_p_probabilities(std::span<float> logits, std::span<const TokenId> recent,
                         const MinPSettings& settings, const MinPFunctions& use = {});

TokenId sample_min_p(std::span<float> logits, std::span<const TokenId> recent,
                     const MinPSettings& settings, Rng& rng, const MinPFunctions& use = {});

// A Picker that remembers what it wrote in the current text (for the penalty); asked
// twice for the same step, it gives the same answer.
Picker min_p_picker(const MinPSettings& settings, const MinPFunctions& use = {});

// min_p_picker, checked against the reference solutions in the learner build
// (reference_check.hpp).
Picker checked_min_p_picker(const MinPSettings& settings, const Tokenizer& tokenizer);

}  // namespace tang
