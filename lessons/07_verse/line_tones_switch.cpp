// The switch of exercise 07a (common/exercise_code.hpp): the reference solution's
// tone check, or with --yours 07a yours, checked against it line by line.
#include "07_verse/exercise/line_tones.hpp"
#include "exercise_code.hpp"

namespace tang {

namespace {

std::string positions(const std::vector<std::size_t>& list) {
  std::string text = "{";
  for (std::size_t p : list) text += (text.size() > 1 ? ", " : "") + std::to_string(p);
  return text + "}";
}

}  // namespace

std::vector<std::size_t> tone_mismatches(std::span<const Tone> line,
                                         std::span<const Tone> pattern) {
  static ExerciseSwitch use("07a", "tone_mismatches");
  const auto same = [](const std::vector<std::size_t>& yours,
                       const std::vector<std::size_t>& theirs) {
    return compare_exactly(yours == theirs, "mismatches at yours " + positions(yours) +
                                                ", theirs " + positions(theirs));
  };
  return use.returns(
      reference::tone_mismatches, mine::tone_mismatches, same,
      [&] { return "a line of " + std::to_string(line.size()) + " characters"; }, line, pattern);
}

}  // namespace tang
