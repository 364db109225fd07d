// drafter.hpp: what proposes the characters the model then checks.
//
// A drafter is anything that, given the text so far, proposes up to k next
// characters and says with what distribution it drew each (q_i, V numbers).
// A drafter that is sure of its guesses (an n-gram table, a form's fixed
// punctuation) gives each of them probability 1.
#pragma once

#include <span>
#include <vector>

#include "rng.hpp"
#include "tokenizer.hpp"

namespace tang {

class Drafter {
 public:
  virtual ~Drafter() = default;
  // Up to k characters after `context` into `drafted`, and their distributions
  // into `q` (drafted.size() rows of V). Fewer (none) when it has no guess.
  virtual void draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
                     std::vector<TokenId>& drafted, std::vector<float>& q) = 0;
};

}  // namespace tang
