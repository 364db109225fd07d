// The switch of exercise 07b (common/exercise_code.hpp): the reference solution's
// beam step, or with --yours 07b yours, whose list is checked against the
// reference's, place by place, on the same scores.
#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "07_verse/exercise/beam_step.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

bool close(double a, double b) {  // within a millionth: a sum in another order, a near tie
  return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b));
}

std::string describe(const std::vector<BeamChoice>& list, std::size_t k) {
  if (k >= list.size()) return "nothing";
  return character_name(list[k].token) + " after beam " + std::to_string(list[k].beam + 1) +
         " (score " + fixed(list[k].score, 6) + ")";
}

// Yours next to theirs: the same list; or as many real extensions (an allowed
// character of an existing beam, once each, scored as the contract says), each
// scoring what theirs in its place does; or not.
Verdict compare_beams(const std::vector<BeamChoice>& yours, const std::vector<BeamChoice>& theirs,
                      std::span<const double> scores, std::span<const std::vector<float>> log_probs,
                      std::span<const LogitMask> allowed) {
  std::size_t k = 0;  // the first place where the lists differ
  while (k < std::min(yours.size(), theirs.size()) && yours[k].beam == theirs[k].beam &&
         yours[k].token == theirs[k].token && yours[k].score == theirs[k].score) {
    ++k;
  }
  if (k == yours.size() && k == theirs.size()) return {};
  bool rounding = yours.size() == theirs.size();
  std::set<std::pair<std::size_t, TokenId>> seen;
  for (std::size_t i = 0; rounding && i < yours.size(); ++i) {
    const BeamChoice& c = yours[i];
    rounding = c.beam < scores.size() && c.token >= 0 &&
               static_cast<std::size_t>(c.token) < log_probs[c.beam].size() &&
               allowed[c.beam].allows(c.token) && seen.insert({c.beam, c.token}).second;
    if (!rounding) break;
    const double exact =
        scores[c.beam] + static_cast<double>(log_probs[c.beam][static_cast<std::size_t>(c.token)]);
    rounding = close(c.score, exact) && close(exact, theirs[i].score);
  }
  return {rounding ? Verdict::kRounding : Verdict::kDisagrees,
          "extension " + std::to_string(k + 1) + ": yours " + describe(yours, k) + ", theirs " +
              describe(theirs, k)};
}

}  // namespace

std::vector<BeamChoice> beam_step(std::span<const double> scores,
                                  std::span<const std::vector<float>> log_probs,
                                  std::span<const LogitMask> allowed, std::size_t width) {
  static ExerciseSwitch use("07b", "beam_step");
  return use.returns(
      reference::beam_step, mine::beam_step,
      [&](const std::vector<BeamChoice>& yours, const std::vector<BeamChoice>& theirs) {
        return compare_beams(yours, theirs, scores, log_probs, allowed);
      },
      [&] { return counted(scores.size(), "beam") + ", width " + std::to_string(width); }, scores,
      log_probs, allowed, width);
}

}  // namespace tang
