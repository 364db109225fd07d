// The switch of exercise 03 (common/exercise_code.hpp): the reference solution's
// top-p filter, or with --yours 03 yours, checked against it on a copy of the
// same probabilities.
#include <vector>

#include "03_topk_topp/exercise/top_p.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void top_p_filter(std::span<float> probabilities, float p) {
  static ExerciseSwitch use("03", "top_p_filter");
  if (!use.yours()) return reference::top_p_filter(probabilities, p);
  if (!use.compares()) return mine::top_p_filter(probabilities, p);
  std::vector<float> theirs(probabilities.begin(), probabilities.end());
  reference::top_p_filter(theirs, p);
  mine::top_p_filter(probabilities, p);
  use.check(compare_floats(probabilities, theirs, 1e-6f), "p " + fixed(p, 2));
}

}  // namespace tang
