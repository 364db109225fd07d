// The switch of exercise 09a (common/exercise_code.hpp): the reference solution's
// score of one head for the previous line's column, or with --yours 09a yours,
// checked against it at every call.
#include <cmath>
#include <string>

#include "09_inside/exercise/column_attention.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

PatternSum previous_line_column(std::span<const float> weights, std::size_t T,
                                std::span<const int> line, std::span<const int> column) {
  static ExerciseSwitch use("09a", "previous_line_column");
  const auto compare = [](const PatternSum& yours, const PatternSum& theirs) {
    if (yours.queries != theirs.queries) {
      return compare_exactly(false, "yours " + std::to_string(yours.queries) +
                                        " positions counted, theirs " +
                                        std::to_string(theirs.queries));
    }
    if (yours.weight == theirs.weight) return Verdict{};
    const bool rounding = std::fabs(yours.weight - theirs.weight) <= 1e-9;  // another order
    return Verdict{
        rounding ? Verdict::kRounding : Verdict::kDisagrees,
        "weight yours " + fixed(yours.weight, 6) + ", theirs " + fixed(theirs.weight, 6)};
  };
  return use.returns(
      reference::previous_line_column, mine::previous_line_column, compare,
      [&] { return "a poem of " + std::to_string(T) + " positions"; }, weights, T, line, column);
}

}  // namespace tang
