// SOLUTION to exercise 05 (the learner's file is exercise/qiyan_jueju.cpp,
// whose comment specifies the behaviour).

#include "05_acrostic/exercise/qiyan_jueju.hpp"

#include <stdexcept>
#include <string>

#include "errors.hpp"

namespace tang::reference {

namespace {

constexpr std::size_t kLine = 8;              // 7 characters + the punctuation
constexpr std::size_t kPoem = 4 * kLine + 1;  // 4 lines + the newline: 33

TokenId id_of(const Tokenizer& tokenizer, const std::string& character) {
  const auto id = tokenizer.find(character);
  if (!id) {
    throw UserError("the vocabulary has no '" +
                    (character == "\n" ? std::string("\\n") : character) +
                    "': a 七言绝句 cannot be written with this model");
  }
  return *id;
}

}  // namespace

LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position) {
  if (position == 0 || position > kPoem) {
    throw std::invalid_argument("qiyan_jueju_mask: position " + std::to_string(position) +
                                " is outside the poem (1 .. 33)");
  }
  const TokenId comma = id_of(tokenizer, "，");
  const TokenId full_stop = id_of(tokenizer, "。");
  const TokenId newline = id_of(tokenizer, "\n");

  LogitMask mask(tokenizer.size());
  if (position == kPoem) {
    const TokenId only[] = {newline};
    return mask.allow_only(only);
  }
  if (position % kLine == 0) {  // 8, 16, 24, 32: the end of line 1, 2, 3, 4
    const bool odd_line = (position / kLine) % 2 == 1;
    const TokenId only[] = {odd_line ? comma : full_stop};
    return mask.allow_only(only);
  }
  return mask.ban(comma).ban(full_stop).ban(newline);  // inside a line
}

}  // namespace tang::reference
