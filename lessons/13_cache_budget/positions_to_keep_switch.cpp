// The switch of exercise 13 (common/exercise_code.hpp): the reference solution's
// choice of positions, or with --yours 13 yours, checked against it: the same
// positions kept. The note names the first position where they differ. With
// --yours the first call begins with six small cases, each a part of the rule
// (positions_to_keep_switch.hpp): the lesson's own calls never tie.
#include "13_cache_budget/positions_to_keep_switch.hpp"

#include <string>
#include <vector>

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

Verdict same_positions(const std::vector<std::size_t>& yours,
                       const std::vector<std::size_t>& theirs) {
  return compare_exactly(yours == theirs, first_difference(yours, theirs));
}

// One case: the part of the rule it checks, and its inputs.
struct KeepCase {
  const char* part;
  std::vector<float> received;  // (n)
  std::size_t budget, sinks, window;
};

const std::vector<KeepCase>& keep_cases() {
  static const std::vector<KeepCase> cases = {
      {"within the budget every position stays: 3 held, a budget of 4",
       {0.5f, 0.1f, 0.2f},
       4,
       0,
       2},
      {"the window keeps the newest 3 whatever they drew", {9, 9, 9, 0, 0, 0}, 3, 0, 3},
      {"the sinks keep the oldest 2 whatever they drew", {0, 0, 5, 5, 5, 0, 0}, 4, 2, 2},
      {"the places left go to what drew the most (positions 5, 1 and 3), and the answer is in "
       "increasing order",
       {0.1f, 3.0f, 0.2f, 2.0f, 0.3f, 5.0f, 0.0f, 0.0f},
       5,
       0,
       2},
      {"the window is not counted twice: the newest drew the most, and the one place left goes "
       "to the next (position 2)",
       {1.0f, 0.0f, 2.0f, 0.0f, 0.0f, 0.0f, 9.0f},
       3,
       0,
       1},
      {"a tie: positions 1, 2 and 3 drew the same and one place is left; the older, 1, stays",
       {0.0f, 1.0f, 1.0f, 1.0f, 0.0f},
       2,
       0,
       1},
  };
  return cases;
}

}  // namespace

void check_keep_rule_cases(ExerciseSwitch& use, decltype(mine::positions_to_keep)* yours) {
  for (const KeepCase& c : keep_cases()) {
    use.returns(
        reference::positions_to_keep, yours, same_positions,
        [&] { return std::string("a case of the rule, ") + c.part; }, std::span(c.received),
        c.budget, c.sinks, c.window);
  }
}

std::vector<std::size_t> positions_to_keep(std::span<const float> received, std::size_t budget,
                                           std::size_t sinks, std::size_t window) {
  static ExerciseSwitch use("13", "positions_to_keep");
  static const bool checked_the_cases = [&] {  // once, before the first call
    if (use.yours()) check_keep_rule_cases(use, mine::positions_to_keep);
    return true;
  }();
  (void)checked_the_cases;
  return use.returns(
      reference::positions_to_keep, mine::positions_to_keep, same_positions,
      [&] {
        return std::to_string(received.size()) + " positions held, a budget of " +
               std::to_string(budget) + " (sinks " + std::to_string(sinks) + ", window " +
               std::to_string(window) + ")";
      },
      received, budget, sinks, window);
}

}  // namespace tang
