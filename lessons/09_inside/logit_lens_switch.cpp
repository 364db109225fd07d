// The switch of exercise 09b (common/exercise_code.hpp): the reference solution's
// logit lens, or with --yours 09b yours, checked against it at every call.
#include <algorithm>
#include <cmath>
#include <string>

#include "09_inside/exercise/logit_lens.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

Verdict compare_candidates(const std::vector<Candidate>& yours,
                           const std::vector<Candidate>& theirs) {
  if (yours.size() != theirs.size()) {
    return compare_exactly(false, std::to_string(yours.size()) + " characters, theirs " +
                                      std::to_string(theirs.size()));
  }
  float gap = 0.0f;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    if (yours[i].id != theirs[i].id) {
      return compare_exactly(false, "rank " + std::to_string(i + 1) + ": yours " +
                                        character_name(yours[i].id) + ", theirs " +
                                        character_name(theirs[i].id));
    }
    gap = std::max(gap, std::fabs(yours[i].probability - theirs[i].probability));
  }
  if (gap == 0.0f) return {};
  return {gap <= 1e-5f ? Verdict::kRounding : Verdict::kDisagrees,
          "probabilities up to " + fixed(gap, 7) + " apart"};
}

}  // namespace

std::vector<Candidate> logit_lens(const GPT& model, std::span<const float> residual,
                                  std::size_t k) {
  static ExerciseSwitch use("09b", "logit_lens");
  return use.returns(
      reference::logit_lens, mine::logit_lens, compare_candidates,
      [&] { return "top " + std::to_string(k); }, model, residual, k);
}

}  // namespace tang
