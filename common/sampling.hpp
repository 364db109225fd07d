// sampling.hpp: from the model's scores (logits) to probabilities.
//
// softmax turns any list of scores into probabilities: exponentiate, then
// divide by the total. Every lesson uses it; lesson 02 then draws a character
// from the probabilities (its exercise), lesson 03 trims them first.
#pragma once

#include <cstddef>
#include <span>

#include "tokenizer.hpp"

namespace tang {

// The largest of `values` (not empty).
float largest_value(std::span<const float> values);

// p_i = exp(z_i - max) / sum_j exp(z_j - max), in place. Subtracting the
// largest logit keeps exp from overflowing and does not change the result.
// Logits of -infinity (banned characters, lesson 05) get probability 0.
void softmax_in_place(std::span<float> logits);

// How lessons 03-12 sample (lessons/03_topk_topp/sampler.hpp).
struct SamplingSettings {
  float temperature = 1.0f;  // 0: greedy
  std::size_t top_k = 0;     // 0: off
  float top_p = 1.0f;        // 1: off
};

// The index of the largest value (the first one on ties): "greedy" decoding.
TokenId argmax(std::span<const float> values);

}  // namespace tang
