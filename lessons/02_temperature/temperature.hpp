// temperature.hpp: how the model's probabilities become one chosen character.
//
//   logits / T  ->  softmax  ->  one uniform "coin" in [0, 1)  ->  a character
//
// T < 1 widens the gaps between scores (safer, more repetitive text); T > 1
// narrows them (bolder, and rare characters get a real chance). T = 0 is the
// limit: always the most likely character ("greedy").
#pragma once

#include <span>

#include "rng.hpp"
#include "tokenizer.hpp"

namespace tang {

// logits[i] /= T, in place (T > 0).
void apply_temperature(std::span<float> logits, float temperature);

// The multinomial step with one uniform draw: walk the characters in id order,
// adding up probabilities, and return the first whose running total exceeds
// `coin` (coin in [0, 1)). Rounding can leave the total just under 1: then the
// last character with non-zero probability is returned.
TokenId sample_from(std::span<const float> probabilities, float coin);

// The index of the largest value (the first one on ties).
TokenId argmax(std::span<const float> values);

// temperature -> softmax -> sample_from, overwriting `logits`; T = 0 means argmax.
TokenId sample_with_temperature(std::span<float> logits, float temperature, Rng& rng);

}  // namespace tang
