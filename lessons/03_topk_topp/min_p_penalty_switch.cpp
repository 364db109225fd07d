// The switch of exercise 03b (common/exercise_code.hpp): the reference solution's
// penalty and min-p, or with --yours 03b yours, checked against them on copies of
// the same numbers.
#include "03_topk_topp/exercise/min_p_penalty.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void repetition_penalty(std::span<float> logits, std::span<const TokenId> recent, float penalty) {
  static ExerciseSwitch use("03b", "repetition_penalty");
  use.rewrite_in_place(
      logits, [&](std::span<float> z) { reference::repetition_penalty(z, recent, penalty); },
      [&](std::span<float> z) { mine::repetition_penalty(z, recent, penalty); }, 1e-6f,
      [&] {
        return "penalty " + label(penalty) + ", " + counted(recent.size(), "recent character");
      });
}

void min_p_filter(std::span<float> probabilities, float min_p) {
  static ExerciseSwitch use("03b", "min_p_filter");
  use.rewrite_in_place(
      probabilities, [&](std::span<float> x) { reference::min_p_filter(x, min_p); },
      [&](std::span<float> x) { mine::min_p_filter(x, min_p); }, 1e-6f,
      [&] { return "min-p " + label(min_p); });
}

}  // namespace tang
