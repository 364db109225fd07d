#include "logit_mask.hpp"

#include <algorithm>
#include <limits>

#include "errors.hpp"

namespace tang {

LogitMask::LogitMask(std::size_t vocab_size) : allowed_(vocab_size, true) {}

LogitMask& LogitMask::ban(TokenId id) {
  allowed_.at(static_cast<std::size_t>(id)) = false;
  return *this;
}

LogitMask& LogitMask::ban(const Tokenizer& tokenizer, const std::vector<std::string>& characters) {
  for (const std::string& c : characters) {
    if (auto id = tokenizer.find(c)) ban(*id);
  }
  return *this;
}

LogitMask& LogitMask::allow_only(std::span<const TokenId> ids) {
  std::fill(allowed_.begin(), allowed_.end(), false);
  for (TokenId id : ids) allowed_.at(static_cast<std::size_t>(id)) = true;
  return *this;
}

std::size_t LogitMask::allowed_count() const {
  return static_cast<std::size_t>(std::count(allowed_.begin(), allowed_.end(), true));
}

void LogitMask::apply(std::span<float> logits) const {
  if (allowed_count() == 0) {
    throw UserError("the constraints allow no character at all: loosen them (an empty allowed set "
                    "cannot be sampled)");
  }
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (!allowed_[i]) logits[i] = -std::numeric_limits<float>::infinity();
  }
}

LogitMask inside_line_mask(const Tokenizer& tokenizer) {
  return LogitMask(tokenizer.size()).ban(tokenizer, {"，", "。", "\n"});
}

}  // namespace tang
