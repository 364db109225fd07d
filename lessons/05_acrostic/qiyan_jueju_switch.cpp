// The switch of exercise 05 (common/exercise_code.hpp): the reference solution's
// mask, or with --yours 05 yours, checked against it character by character.
#include "05_acrostic/exercise/qiyan_jueju.hpp"
#include "exercise_code.hpp"

namespace tang {

LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position) {
  static ExerciseSwitch use("05", "qiyan_jueju_mask");
  if (!use.yours()) return reference::qiyan_jueju_mask(tokenizer, position);
  LogitMask yours = mine::qiyan_jueju_mask(tokenizer, position);
  if (use.compares()) {
    const LogitMask theirs = reference::qiyan_jueju_mask(tokenizer, position);
    std::string what;  // the first character one of the two masks allows and the other bans
    for (std::size_t id = 0; id < theirs.size() && what.empty() && yours.size() == theirs.size();
         ++id) {
      const auto t = static_cast<TokenId>(id);
      if (yours.allows(t) != theirs.allows(t)) {
        what = character_name(t) + ": yours " + (yours.allows(t) ? "allows" : "bans") +
               " it, theirs " + (theirs.allows(t) ? "allows" : "bans") + " it";
      }
    }
    if (yours.size() != theirs.size()) what = "yours covers another number of characters";
    use.check(compare_exactly(what.empty(), what), "position " + std::to_string(position));
  }
  return yours;
}

}  // namespace tang
