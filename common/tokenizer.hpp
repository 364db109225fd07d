// tokenizer.hpp: characters to ids and back.
//
// Our model reads one character per token. A vocabulary built from a corpus is
// the newline (it separates poems) followed by every other corpus character
// sorted by code point, so the same corpus always gives the same ids. Code that
// needs the newline asks newline(); it never assumes an id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tang {

using TokenId = int;

class Tokenizer {
 public:
  // Vocabulary from a list of characters, in id order. Throws UserError on a
  // duplicate, an empty entry, or an entry that is not exactly one UTF-8 character.
  explicit Tokenizer(std::vector<std::string> characters);

  // The fixed vocabulary of a corpus: "\n" then every other character by code point.
  static Tokenizer from_corpus(std::string_view text);

  std::size_t size() const { return characters_.size(); }
  const std::vector<std::string>& characters() const { return characters_; }
  const std::string& character(TokenId id) const { return characters_.at(static_cast<size_t>(id)); }

  // The id of one character, or nothing when the model never saw it.
  std::optional<TokenId> find(std::string_view character) const;

  // The id of "\n", the character that ends every poem. Throws UserError when the
  // vocabulary has none (a model that cannot end a poem).
  TokenId newline() const;

  // Text to ids. Throws UserError naming the first character not in the vocabulary.
  std::vector<TokenId> encode(std::string_view text) const;
  std::string decode(const std::vector<TokenId>& ids) const;

 private:
  std::vector<std::string> characters_;
  std::unordered_map<std::string, TokenId> ids_;
};

}  // namespace tang
