// The switch of exercise 06c (common/exercise_code.hpp): the reference solution's
// cost model, or with --yours 06c yours, checked against it at every call.
#include <string>

#include "06_kvcache/exercise/cost_model.hpp"
#include "exercise_code.hpp"

namespace tang {

namespace {

Verdict same_count(std::size_t yours, std::size_t theirs) {
  return compare_numbers(static_cast<double>(yours), static_cast<double>(theirs), 0.0, 0);
}

}  // namespace

std::size_t positions_without_cache(std::size_t n, std::size_t block_size) {
  static ExerciseSwitch use("06c", "positions_without_cache");
  return use.returns(
      reference::positions_without_cache, mine::positions_without_cache, same_count,
      [&] { return "n " + std::to_string(n) + ", context " + std::to_string(block_size); }, n,
      block_size);
}

std::size_t positions_with_cache(std::size_t n) {
  static ExerciseSwitch use("06c", "positions_with_cache");
  return use.returns(
      reference::positions_with_cache, mine::positions_with_cache, same_count,
      [&] { return "n " + std::to_string(n); }, n);
}

double predicted_speedup(std::size_t n, double t1, double b, std::size_t block_size) {
  static ExerciseSwitch use("06c", "predicted_speedup");
  return use.returns(
      reference::predicted_speedup, mine::predicted_speedup,
      [](double yours, double theirs) {  // a sum in another order is a rounding, not a formula
        return compare_numbers(yours, theirs, 1e-9, 6);
      },
      [&] { return "n " + std::to_string(n) + ", context " + std::to_string(block_size); }, n, t1,
      b, block_size);
}

}  // namespace tang
