// number_text.hpp: numbers as the lessons' tables print them.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace tang {

// value with `decimals` digits after the point: fixed(3.14159, 2) is "3.14".
inline std::string fixed(double value, int decimals) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// part / whole as a percentage with one decimal, "42.0%" (0.0% when whole is 0).
inline std::string percent(std::size_t part, std::size_t whole) {
  return fixed(whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0, 1) +
         "%";
}

// n and the thing counted, plural when n is not 1: "1 beam", "4 beams".
inline std::string counted(std::size_t n, const std::string& thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

}  // namespace tang
