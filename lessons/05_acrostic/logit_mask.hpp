// logit_mask.hpp: constrained decoding, one reusable rule at a time.
//
// A LogitMask says which characters may come next. Applying it sets the logit
// of every other character to -infinity, so softmax gives it probability 0 and
// no temperature, top-k or top-p can bring it back. Masks are applied FIRST:
//   mask -> temperature -> top-k -> softmax -> top-p -> one coin
// API servers that guarantee valid JSON do the same at every step.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tokenizer.hpp"

namespace tang {

class LogitMask {
 public:
  explicit LogitMask(std::size_t vocab_size);  // everything allowed

  LogitMask& ban(TokenId id);
  LogitMask& ban(const Tokenizer& tokenizer, const std::vector<std::string>& characters);
  LogitMask& allow_only(std::span<const TokenId> ids);

  bool allows(TokenId id) const { return allowed_[static_cast<std::size_t>(id)]; }
  std::size_t allowed_count() const { return allowed_.size() - banned_.size(); }
  std::size_t size() const { return allowed_.size(); }  // the vocabulary size

  // Sets banned logits to -infinity. Throws UserError when nothing is allowed.
  // Touches only the banned ids: 3 stores for inside_line_mask, not 7,129.
  void apply(std::span<float> logits) const;

 private:
  std::vector<bool> allowed_;    // (V): may this id come next?
  std::vector<TokenId> banned_;  // the ids that may not, each once
};

// Inside a line of verse: no "，", no "。", no newline.
LogitMask inside_line_mask(const Tokenizer& tokenizer);

}  // namespace tang
