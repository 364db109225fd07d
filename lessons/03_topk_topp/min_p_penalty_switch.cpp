// The switch of exercise 03b (common/exercise_code.hpp): the reference solution's
// penalty and min-p, or with --yours 03b yours, checked against them on the same
// numbers.
#include "03_topk_topp/exercise/min_p_penalty.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void repetition_penalty(std::span<float> logits, std::span<const TokenId> recent, float penalty) {
  static ExerciseSwitch use("03b", "repetition_penalty");
  const ExerciseSwitch::Written written[] = {{logits, 1e-6f}};
  use.writes(
      written, reference::repetition_penalty, mine::repetition_penalty,
      [&] {
        return "penalty " + label(penalty) + ", " + counted(recent.size(), "recent character");
      },
      logits, recent, penalty);
}

void min_p_filter(std::span<float> probabilities, float min_p) {
  static ExerciseSwitch use("03b", "min_p_filter");
  const ExerciseSwitch::Written written[] = {{probabilities, 1e-6f}};
  use.writes(
      written, reference::min_p_filter, mine::min_p_filter, [&] { return "min-p " + label(min_p); },
      probabilities, min_p);
}

}  // namespace tang
