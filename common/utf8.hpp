// utf8.hpp: split UTF-8 text into characters, strictly.
//
// A "character" here is one Unicode code point, kept as its UTF-8 bytes. Any
// malformed byte sequence (bad lead byte, missing continuation, overlong form,
// surrogate, value past U+10FFFF) is an error that names its byte offset.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tang {

// Length in bytes of the well-formed character starting at text[offset];
// throws UserError "invalid UTF-8 at byte N" otherwise.
std::size_t utf8_char_length(std::string_view text, std::size_t offset);

// The characters of `text`, each as its own UTF-8 string.
std::vector<std::string> utf8_split(std::string_view text);

// One code point as UTF-8 bytes.
std::string utf8_encode(char32_t code_point);

// The code point of one well-formed character.
char32_t utf8_decode_one(std::string_view character);

}  // namespace tang
