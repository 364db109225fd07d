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
// The penalty and min-p are exercise 03b, the draw exercise 02: the step calls
// their switches, which run the reference solutions, or yours with --yours
// (common/exercise_code.hpp).
#pragma once

#include <cstddef>
#include <span>

#include "02_temperature/exercise/sample_with_temperature.hpp"  // exercise 02: sample_from
#include "03_topk_topp/exercise/min_p_penalty.hpp"              // exercise 03b
#include "generate.hpp"
#include "rng.hpp"
#include "tokenizer.hpp"
#include "trace.hpp"

namespace tang {

struct MinPSettings {
  float temperature = 1.5f;  // 0: greedy, on the penalised logits
  float penalty = 1.1f;      // 1: off (llama.cpp's --repeat-penalty)
  std::size_t last_n = 64;   // how many recent characters it looks at (--repeat-last-n)
  float min_p = 0.05f;       // 0: off (llama.cpp's --min-p)
};

// For temperature > 0: turns `logits` (V) into the probabilities (V) the coin
// is drawn from, in place: the penalty on the ids in `recent`, then
// (z - max) / T, softmax, min-p.
void min_p_probabilities(std::span<float> logits, std::span<const TokenId> recent,
                         const MinPSettings& settings, StepRecord* record = nullptr);

TokenId sample_min_p(std::span<float> logits, std::span<const TokenId> recent,
                     const MinPSettings& settings, Rng& rng, StepRecord* record = nullptr);

// A Picker that remembers what it wrote in the current text (for the penalty); asked
// twice for the same step, it gives the same answer.
Picker min_p_picker(const MinPSettings& settings);

}  // namespace tang
