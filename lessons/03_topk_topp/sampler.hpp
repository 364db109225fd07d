// sampler.hpp: the full sampling step of lessons 03-12.
//
//   [constraint masks, lesson 05] -> temperature -> top-k -> softmax -> top-p -> one coin
//
// Temperature is applied as (z - max) / T: the same distribution as z / T,
// and it works for any T > 0 (1e-40 included, where z / T would overflow).
//
// At a high temperature thousands of unlikely characters together take a large
// share of the probability. Two cures, applied in this order: top-k (here) keeps
// the k highest logits and sets the rest to -infinity; top-p ("nucleus",
// exercise 03) keeps the smallest set of most likely characters whose
// probabilities add up to at least p. The draw is exercise 02. The step calls
// the exercises' switches, which run the reference solutions, or yours with
// --yours (common/exercise_code.hpp).
#pragma once

#include <functional>
#include <span>

#include "02_temperature/exercise/sample_with_temperature.hpp"  // exercise 02: sample_from
#include "03_topk_topp/exercise/top_p.hpp"                      // exercise 03: top_p_filter
#include "generate.hpp"
#include "options.hpp"
#include "rng.hpp"
#include "sampling.hpp"
#include "trace.hpp"

namespace tang {

// Keeps every logit >= the k-th largest (ties at the border stay, as PyTorch's
// masked_fill does); the others become -infinity. k = 0 or k >= size keeps all.
void top_k_filter(std::span<float> logits, std::size_t k);

// What lesson 05 puts first: a mask that sets the logits of banned characters
// to -inf (LogitMask::apply), or nothing.
using Constraint = std::function<void(std::span<float> logits)>;

// The step above, overwriting `logits` (with the probabilities it drew from).
// Temperature 0 is greedy (argmax). With a record (--trace), it also notes what
// each stage did (trace.hpp).
TokenId sample_next(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                    StepRecord* record = nullptr, const Constraint& constraint = {});

// A sampling step with sample_next's arguments: lesson 03's own, or the tuned
// path's (lesson 11's TunedDraw), for the writers that take either.
using SampleStep =
    std::function<TokenId(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                          StepRecord* record, const Constraint& constraint)>;

// A Picker (generate.hpp) that samples with `settings`.
Picker sampling_picker(const SamplingSettings& settings);

// How lessons 04-06 write unless flags say otherwise: T = 0.8 with top-k.
SamplingSettings writing_settings(const LessonOptions& options);

}  // namespace tang
