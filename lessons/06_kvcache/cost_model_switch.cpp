// The switch of exercise 06c (common/exercise_code.hpp): the reference solution's
// cost model, or with --yours 06c yours, checked against it at every call.
#include <cmath>
#include <string>

#include "06_kvcache/exercise/cost_model.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

std::size_t positions_without_cache(std::size_t n, std::size_t block_size) {
  static ExerciseSwitch use("06c", "positions_without_cache");
  if (!use.yours()) return reference::positions_without_cache(n, block_size);
  const std::size_t yours = mine::positions_without_cache(n, block_size);
  if (use.compares()) {
    const std::size_t theirs = reference::positions_without_cache(n, block_size);
    use.check(compare_exactly(yours == theirs, "yours " + std::to_string(yours) + ", theirs " +
                                                   std::to_string(theirs)),
              "n " + std::to_string(n) + ", context " + std::to_string(block_size));
  }
  return yours;
}

std::size_t positions_with_cache(std::size_t n) {
  static ExerciseSwitch use("06c", "positions_with_cache");
  if (!use.yours()) return reference::positions_with_cache(n);
  const std::size_t yours = mine::positions_with_cache(n);
  if (use.compares()) {
    const std::size_t theirs = reference::positions_with_cache(n);
    use.check(compare_exactly(yours == theirs, "yours " + std::to_string(yours) + ", theirs " +
                                                   std::to_string(theirs)),
              "n " + std::to_string(n));
  }
  return yours;
}

double predicted_speedup(std::size_t n, double t1, double b, std::size_t block_size) {
  static ExerciseSwitch use("06c", "predicted_speedup");
  if (!use.yours()) return reference::predicted_speedup(n, t1, b, block_size);
  const double yours = mine::predicted_speedup(n, t1, b, block_size);
  if (use.compares()) {
    const double theirs = reference::predicted_speedup(n, t1, b, block_size);
    const double gap = std::fabs(yours - theirs);
    Verdict verdict;
    if (yours != theirs) {  // a sum in another order is a rounding, not a formula
      verdict = {gap <= 1e-9 * std::fabs(theirs) ? Verdict::kRounding : Verdict::kDisagrees,
                 "yours " + fixed(yours, 6) + ", theirs " + fixed(theirs, 6)};
    }
    use.check(verdict, "n " + std::to_string(n) + ", context " + std::to_string(block_size));
  }
  return yours;
}

}  // namespace tang
