// next_char.hpp: after reading a text, the model scores every character it
// knows; softmax turns the scores (logits) into probabilities.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "generate.hpp"

namespace tang {

// The prompt as token ids (its characters were checked with the flags); a
// prompt longer than the context keeps its last block_size characters and
// says so on `out`.
std::vector<TokenId> encode_prompt(const GPT& model, const std::string& text, std::ostream& out);

// The next-character distribution after `prompt_ids`: softmax of the logits.
std::vector<float> next_char_probabilities(Predictor& predictor,
                                           std::span<const TokenId> prompt_ids);

struct Candidate {
  TokenId id;
  float probability;
};

// The n most likely characters, most likely first (ties: smaller id first).
std::vector<Candidate> most_likely(std::span<const float> probabilities, std::size_t n);

}  // namespace tang
