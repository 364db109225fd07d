#include "05_acrostic/logit_mask.hpp"

#include <algorithm>
#include <limits>

#include "errors.hpp"

namespace tang {

LogitMask::LogitMask(std::size_t vocab_size) : allowed_(vocab_size, true) {}

LogitMask& LogitMask::ban(TokenId id) {
  if (allowed_.at(static_cast<std::size_t>(id))) {
    allowed_[static_cast<std::size_t>(id)] = false;
    banned_.push_back(id);
  }
  return *this;
}

LogitMask& LogitMask::ban(const Tokenizer& tokenizer, const std::vector<std::string>& characters) {
  for (const std::string& c : characters) {
    if (auto id = tokenizer.find(c)) ban(*id);
  }
  return *this;
}

LogitMask& LogitMask::allow_only(std::span<const TokenId> ids) {
  std::vector<bool> keep(allowed_.size(), false);
  for (TokenId id : ids) keep.at(static_cast<std::size_t>(id)) = true;
  allowed_.assign(allowed_.size(), true);
  banned_.clear();
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (!keep[i]) ban(static_cast<TokenId>(i));
  }
  return *this;
}

void LogitMask::apply(std::span<float> logits) const {
  if (allowed_count() == 0) {
    throw UserError(
        "the constraints allow no character at all: loosen them (an empty allowed set "
        "cannot be sampled)");
  }
  for (const TokenId id : banned_) {
    logits[static_cast<std::size_t>(id)] = -std::numeric_limits<float>::infinity();
  }
}

LogitMask inside_line_mask(const Tokenizer& tokenizer) {
  return LogitMask(tokenizer.size()).ban(tokenizer, {"，", "。", "\n"});
}

}  // namespace tang
