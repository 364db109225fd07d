// The switch of exercise 12 (common/exercise_code.hpp): the reference solution's
// verification, or with --yours 12 yours, checked against it: the same drafts kept,
// the same next character.
#include <stdexcept>

#include "12_speculative/exercise/accept_drafts.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

Verification accept_drafts(std::span<const float> p, std::span<const float> q,
                           std::span<const TokenId> drafted, std::span<const float> coins,
                           std::size_t V) {
  const std::size_t k = drafted.size();
  if (p.size() != (k + 1) * V || q.size() != k * V || coins.size() != k + 1)
    throw std::invalid_argument("accept_drafts: p must be (k+1, V), q (k, V), coins (k+1)");
  static ExerciseSwitch use("12", "accept_drafts");
  const auto same = [](const Verification& yours, const Verification& theirs) {
    return compare_exactly(yours.accepted == theirs.accepted && yours.next == theirs.next,
                           counted(yours.accepted, "draft") + " kept, then " +
                               std::to_string(yours.next) + ", where the reference keeps " +
                               std::to_string(theirs.accepted) + ", then " +
                               std::to_string(theirs.next));
  };
  return use.returns(
      reference::accept_drafts, mine::accept_drafts, same,
      [&] { return counted(k, "draft") + " over " + counted(V, "character"); }, p, q, drafted,
      coins, V);
}

}  // namespace tang
