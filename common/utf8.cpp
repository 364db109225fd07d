#include "utf8.hpp"

#include "errors.hpp"

namespace tang {

namespace {

[[noreturn]] void invalid_at(std::size_t offset, const char* why) {
  throw UserError("invalid UTF-8 at byte " + std::to_string(offset) + " (" + why +
                  "): save the text as UTF-8");
}

bool is_continuation(unsigned char b) {
  return (b & 0xC0) == 0x80;
}

}  // namespace

std::size_t utf8_char_length(std::string_view text, std::size_t offset) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[offset + i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  char32_t min_value = 0;  // the smallest code point that needs this many bytes
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    min_value = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    min_value = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    min_value = 0x10000;
  } else {
    invalid_at(offset, "not a lead byte");
  }
  if (offset + length > text.size()) invalid_at(offset, "character cut off at end of text");
  char32_t value = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if (!is_continuation(byte(i))) invalid_at(offset, "missing continuation byte");
    value = (value << 6) | (byte(i) & 0x3F);
  }
  if (value < min_value) invalid_at(offset, "overlong encoding");
  if (value >= 0xD800 && value <= 0xDFFF) invalid_at(offset, "surrogate code point");
  if (value > 0x10FFFF) invalid_at(offset, "code point past U+10FFFF");
  return length;
}

std::vector<std::string> utf8_split(std::string_view text) {
  std::vector<std::string> characters;
  characters.reserve(text.size() / 3 + 1);
  for (std::size_t offset = 0; offset < text.size();) {
    const std::size_t length = utf8_char_length(text, offset);
    characters.emplace_back(text.substr(offset, length));
    offset += length;
  }
  return characters;
}

std::string utf8_encode(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

char32_t utf8_decode_one(std::string_view character) {
  const std::size_t length = utf8_char_length(character, 0);
  if (length != character.size()) throw UserError("expected exactly one UTF-8 character");
  const auto lead = static_cast<unsigned char>(character[0]);
  char32_t value = length == 1 ? lead : lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    value = (value << 6) | (static_cast<unsigned char>(character[i]) & 0x3F);
  }
  return value;
}

}  // namespace tang
