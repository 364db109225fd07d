// The switch of exercise 05 (common/exercise_code.hpp): the reference solution's
// mask, or with --yours 05 yours, checked against it character by character.
#include <string>

#include "05_acrostic/exercise/qiyan_jueju.hpp"
#include "exercise_code.hpp"

namespace tang {

namespace {

// The first character one of the two masks allows and the other bans.
Verdict compare_masks(const LogitMask& yours, const LogitMask& theirs) {
  if (yours.size() != theirs.size())
    return compare_exactly(false, "yours covers another number of characters");
  for (std::size_t id = 0; id < theirs.size(); ++id) {
    const auto t = static_cast<TokenId>(id);
    if (yours.allows(t) != theirs.allows(t)) {
      return compare_exactly(false, character_name(t) + ": yours " +
                                        (yours.allows(t) ? "allows" : "bans") + " it, theirs " +
                                        (theirs.allows(t) ? "allows" : "bans") + " it");
    }
  }
  return {};
}

}  // namespace

LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position) {
  static ExerciseSwitch use("05", "qiyan_jueju_mask");
  return use.returns(
      reference::qiyan_jueju_mask, mine::qiyan_jueju_mask, compare_masks,
      [&] { return "position " + std::to_string(position); }, tokenizer, position);
}

}  // namespace tang
