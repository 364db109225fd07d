#include "tokenizer.hpp"

#include <algorithm>
#include <set>

#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

Tokenizer::Tokenizer(std::vector<std::string> characters) : characters_(std::move(characters)) {
  ids_.reserve(characters_.size());
  for (std::size_t id = 0; id < characters_.size(); ++id) {
    const std::string& c = characters_[id];
    if (c.empty() || utf8_char_length(c, 0) != c.size()) {
      throw UserError("vocabulary entry " + std::to_string(id) +
                      " is not exactly one UTF-8 character: rebuild the checkpoint");
    }
    if (!ids_.emplace(c, static_cast<TokenId>(id)).second) {
      throw UserError("vocabulary has the character '" + c + "' twice (ids " +
                      std::to_string(ids_[c]) + " and " + std::to_string(id) +
                      "): rebuild the checkpoint");
    }
  }
}

Tokenizer Tokenizer::from_corpus(std::string_view text) {
  std::set<char32_t> seen;
  for (std::size_t offset = 0; offset < text.size();) {  // character by character, no copies
    const std::size_t length = utf8_char_length(text, offset);
    seen.insert(utf8_decode_one(text.substr(offset, length)));
    offset += length;
  }
  seen.erase(U'\n');
  std::vector<std::string> characters{"\n"};
  for (char32_t cp : seen) characters.push_back(utf8_encode(cp));
  return Tokenizer(std::move(characters));
}

std::optional<TokenId> Tokenizer::find(std::string_view character) const {
  auto it = ids_.find(std::string(character));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

TokenId Tokenizer::newline() const {
  if (const auto id = find("\n")) return *id;
  throw UserError(
      "this vocabulary has no newline, which ends every poem: use a model trained on the poems");
}

std::vector<TokenId> Tokenizer::encode(std::string_view text) const {
  std::vector<TokenId> ids;
  ids.reserve(text.size() / 3 + 1);
  for (std::size_t offset = 0; offset < text.size();) {
    const std::size_t length = utf8_char_length(text, offset);
    const std::string_view c = text.substr(offset, length);
    auto id = find(c);
    if (!id) {
      throw UserError("the character '" + std::string(c) + "' (byte " + std::to_string(offset) +
                      ") is not in the model's vocabulary: use characters from the Tang poems");
    }
    ids.push_back(*id);
    offset += length;
  }
  return ids;
}

std::string Tokenizer::decode(const std::vector<TokenId>& ids) const {
  std::string text;
  for (TokenId id : ids) text += character(id);
  return text;
}

}  // namespace tang
