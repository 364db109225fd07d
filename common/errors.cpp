#include "errors.hpp"

#include <cstdio>

namespace tang {

namespace {

// Characters that print as nothing, or change how the text around them shows:
// C1 controls, zero-width and joiner characters, bidirectional controls (e.g.
// U+202E turns the rest of a line around), line separators, the BOM, and
// combining marks (they stack on the character before them).
bool invisible(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2060 && c <= 0x206F) || c == 0x2028 || c == 0x2029 || c == 0xFEFF || c == 0x00AD ||
         (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xFE20 && c <= 0xFE2F) ||
         (c >= 0xE0000 && c <= 0xE0FFF);
}

// Length of the well-formed UTF-8 character at text[i] and its code point, or 0.
std::size_t decode(std::string_view text, std::size_t i, char32_t& c) {
  const auto b = static_cast<unsigned char>(text[i]);
  std::size_t n = b < 0x80           ? 1
                  : (b >> 5) == 0x6  ? 2
                  : (b >> 4) == 0xE  ? 3
                  : (b >> 3) == 0x1E ? 4
                                     : 0;
  if (n == 0 || i + n > text.size()) return 0;
  c = n == 1 ? b : n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
  for (std::size_t k = 1; k < n; ++k) {
    const auto cont = static_cast<unsigned char>(text[i + k]);
    if ((cont >> 6) != 0x2) return 0;
    c = (c << 6) | (cont & 0x3F);
  }
  return n;
}

}  // namespace

std::string printable(const std::string& character) {
  return character == "\n" ? "⏎" : show_invisible(character);
}

std::string show_invisible(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t n = decode(text, i, c);
    const auto b = static_cast<unsigned char>(text[i]);
    if (n == 0) {  // not UTF-8: show the byte
      out += std::string("\\x") + hex[b >> 4] + hex[b & 0xF];
      i += 1;
    } else if (c == '\n') {
      out += "\\n";
      i += 1;
    } else if (c == '\r') {
      out += "\\r";
      i += 1;
    } else if (c == '\t') {
      out += "\\t";
      i += 1;
    } else if (c < 0x20 || c == 0x7F) {
      out += std::string("\\x") + hex[b >> 4] + hex[b & 0xF];
      i += 1;
    } else if (invisible(c)) {
      char code[16];
      std::snprintf(code, sizeof code, "\\u{%04X}", static_cast<unsigned>(c));
      out += code;
      i += n;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string one_line(const std::string& text) {
  return show_invisible(text);
}

}  // namespace tang
