// sampling_distribution.hpp: the distribution lesson 03's sampler draws from.
//
// Speculative decoding compares two distributions, the model's and the
// drafter's, before it draws: so it needs the sampler's distribution itself,
// not one draw from it. This is sample_next (lesson 03) without its last line:
// the constraint's mask, then greedy (all the probability on the argmax) or
// the temperature, top-k, softmax and top-p. sample_from (exercise 02) of it
// with a coin is the character sample_next draws with that coin (tested).
#pragma once

#include <span>

#include "03_topk_topp/sampler.hpp"  // Constraint
#include "sampling.hpp"

namespace tang {

// logits (V) becomes the probabilities sample_next would draw from.
void to_sampling_distribution(std::span<float> logits, const SamplingSettings& settings,
                              const Constraint& constraint = {});

}  // namespace tang
