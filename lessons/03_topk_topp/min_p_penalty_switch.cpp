// The switch of exercise 03b (common/exercise_code.hpp): the reference solution's
// penalty and min-p, or with --yours 03b yours, checked against them on copies of
// the same numbers.
#include <vector>

#include "03_topk_topp/exercise/min_p_penalty.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void repetition_penalty(std::span<float> logits, std::span<const TokenId> recent, float penalty) {
  static ExerciseSwitch use("03b", "repetition_penalty");
  if (!use.yours()) return reference::repetition_penalty(logits, recent, penalty);
  if (!use.compares()) return mine::repetition_penalty(logits, recent, penalty);
  std::vector<float> theirs(logits.begin(), logits.end());
  reference::repetition_penalty(theirs, recent, penalty);
  mine::repetition_penalty(logits, recent, penalty);
  use.check(compare_floats(logits, theirs, 1e-6f),
            "penalty " + fixed(penalty, 2) + ", " + counted(recent.size(), "recent character"));
}

void min_p_filter(std::span<float> probabilities, float min_p) {
  static ExerciseSwitch use("03b", "min_p_filter");
  if (!use.yours()) return reference::min_p_filter(probabilities, min_p);
  if (!use.compares()) return mine::min_p_filter(probabilities, min_p);
  std::vector<float> theirs(probabilities.begin(), probabilities.end());
  reference::min_p_filter(theirs, min_p);
  mine::min_p_filter(probabilities, min_p);
  use.check(compare_floats(probabilities, theirs, 1e-6f), "min-p " + fixed(min_p, 2));
}

}  // namespace tang
