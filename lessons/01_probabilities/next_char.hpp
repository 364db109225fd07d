// next_char.hpp: after reading a text, the model scores every character it
// knows; softmax turns the scores (logits) into probabilities.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "decoder.hpp"
#include "tokenizer.hpp"

namespace tang {

// probs[i] = exp(logits[i] - max) / sum_j exp(logits[j] - max), in place.
// Logits of -infinity (banned characters, lesson 05) get probability 0.
void softmax_in_place(std::span<float> logits);

// The next-character distribution after `prompt_ids`.
std::vector<float> next_char_probabilities(Decoder& decoder, std::span<const TokenId> prompt_ids);

struct Candidate {
  TokenId id;
  float probability;
};

// The n most likely characters, most likely first (ties: smaller id first).
std::vector<Candidate> most_likely(std::span<const float> probabilities, std::size_t n);

}  // namespace tang
