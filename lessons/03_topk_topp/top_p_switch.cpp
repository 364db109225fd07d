// The switch of exercise 03 (common/exercise_code.hpp): the reference solution's
// top-p filter, or with --yours 03 yours, checked against it on a copy of the
// same probabilities.
#include "03_topk_topp/exercise/top_p.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void top_p_filter(std::span<float> probabilities, float p) {
  static ExerciseSwitch use("03", "top_p_filter");
  use.rewrite_in_place(
      probabilities, [&](std::span<float> x) { reference::top_p_filter(x, p); },
      [&](std::span<float> x) { mine::top_p_filter(x, p); }, 1e-6f,
      [&] { return "p " + label(p); });
}

}  // namespace tang
