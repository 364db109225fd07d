#include "errors.hpp"

namespace tang {

std::string one_line(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (b < 0x20 || b == 0x7F) {
      out += std::string("\\x") + hex[b >> 4] + hex[b & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace tang
