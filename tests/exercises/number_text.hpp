// number_text.hpp: numbers in the exercise tests' failure messages.
#pragma once

#include <sstream>
#include <string>

namespace tang::testing {

// A number as a person writes it (gtest's messages would print 0.15f as 0.15000000596046448).
inline std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// All the digits a float needs to be told apart from its neighbours.
inline std::string exact(float x) {
  std::ostringstream out;
  out.precision(9);
  out << x;
  return out.str();
}

}  // namespace tang::testing
