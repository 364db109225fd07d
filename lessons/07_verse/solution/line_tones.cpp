// SOLUTION to exercise 07a (the learner's file is exercise/line_tones.cpp,
// whose comment specifies the behaviour).

#include "07_verse/exercise/line_tones.hpp"

#include <stdexcept>
#include <string>

namespace tang::reference {

std::vector<std::size_t> tone_mismatches(std::span<const Tone> line,
                                         std::span<const Tone> pattern) {
  if (line.size() != pattern.size()) {
    throw std::invalid_argument("tone_mismatches: a line of " + std::to_string(line.size()) +
                                " characters against a pattern of " +
                                std::to_string(pattern.size()));
  }
  std::vector<std::size_t> wrong;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const bool fits =
        pattern[i] == Tone::kEither || line[i] == Tone::kEither || line[i] == pattern[i];
    if (!fits) wrong.push_back(i + 1);
  }
  return wrong;
}

}  // namespace tang::reference
