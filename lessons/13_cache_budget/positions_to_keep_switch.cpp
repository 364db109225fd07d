// The switch of exercise 13 (common/exercise_code.hpp): the reference solution's
// choice of positions, or with --yours 13 yours, checked against it: the same
// positions kept. The note names the first position where they differ.
#include <string>

#include "13_cache_budget/exercise/positions_to_keep.hpp"
#include "exercise_code.hpp"

namespace tang {

namespace {

std::string first_difference(const std::vector<std::size_t>& yours,
                             const std::vector<std::size_t>& theirs) {
  std::size_t i = 0;
  while (i < yours.size() && i < theirs.size() && yours[i] == theirs[i]) ++i;
  if (i == yours.size() && i == theirs.size()) return "";
  const auto at = [&](const std::vector<std::size_t>& v) {
    return i < v.size() ? "position " + std::to_string(v[i]) : std::string("nothing");
  };
  return std::to_string(yours.size()) + " kept where the reference keeps " +
         std::to_string(theirs.size()) + "; kept in place " + std::to_string(i) + ": yours " +
         at(yours) + ", the reference's " + at(theirs);
}

}  // namespace

std::vector<std::size_t> positions_to_keep(std::span<const float> received, std::size_t budget,
                                           std::size_t sinks, std::size_t window) {
  static ExerciseSwitch use("13", "positions_to_keep");
  const auto same = [](const std::vector<std::size_t>& yours,
                       const std::vector<std::size_t>& theirs) {
    return compare_exactly(yours == theirs, first_difference(yours, theirs));
  };
  return use.returns(
      reference::positions_to_keep, mine::positions_to_keep, same,
      [&] {
        return std::to_string(received.size()) + " positions held, a budget of " +
               std::to_string(budget) + " (sinks " + std::to_string(sinks) + ", window " +
               std::to_string(window) + ")";
      },
      received, budget, sinks, window);
}

}  // namespace tang
