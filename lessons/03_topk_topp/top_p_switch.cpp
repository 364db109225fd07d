// The switch of exercise 03 (common/exercise_code.hpp): the reference solution's
// top-p filter, or with --yours 03 yours, checked against it on the same
// probabilities.
#include "03_topk_topp/exercise/top_p.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void top_p_filter(std::span<float> probabilities, float p) {
  static ExerciseSwitch use("03", "top_p_filter");
  const ExerciseSwitch::Written written[] = {{probabilities, 1e-6f}};
  use.writes(
      written, reference::top_p_filter, mine::top_p_filter, [&] { return "p " + label(p); },
      probabilities, p);
}

}  // namespace tang
