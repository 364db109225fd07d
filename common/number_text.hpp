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

// A temperature or p as a label: enough digits to tell it apart from its
// neighbours (0.04 stays 0.04, 1e-06 stays 1e-06), at least one decimal (1.0).
inline std::string label(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", static_cast<double>(value));
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// Three significant digits, "2.98e-08", "0.129": a difference in a note. Nine
// tell any two floats apart.
inline std::string scientific(double value, int digits = 3) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

// n and the thing counted, plural when n is not 1: "1 beam", "4 beams".
inline std::string counted(std::size_t n, const std::string& thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

}  // namespace tang
