// The switch of exercise 12 (common/exercise_code.hpp): the reference solution's
// verification, or with --yours 12 yours, checked against it: the same drafts kept,
// the same next character. A lesson's own verifications rarely land on the rule's
// edges (at T 0 never: every row is certain), so with --yours the first call
// begins with five small cases, each a part of the rule a wrong version gets
// wrong; a note names the part where yours first differs.
#include <stdexcept>
#include <vector>

#include "12_speculative/exercise/accept_drafts.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

// One case of V = 4 characters: the part of the rule it checks, and its inputs.
struct RuleCase {
  const char* part;
  std::vector<float> p, q;  // (k+1, 4), (k, 4)
  std::vector<TokenId> drafted;
  std::vector<float> coins;  // (k+1)
};

const std::vector<RuleCase>& rule_cases() {
  static const std::vector<RuleCase> cases = {
      {"the coin's edge: p_0(1) / q_0(1) = 0.5 and coins[0] = 0.5; a coin keeps a draft only "
       "when it is below that ratio, so this draft is thrown away",
       {0.5f, 0.25f, 0.25f, 0, /* p_1 */ 0, 0, 0, 1},
       {0.25f, 0.5f, 0.25f, 0},
       {1},
       {0.5f, 0.1f}},
      {"after a rejection: the character is drawn from what p has more of than q, "
       "max(0, p_0 - q_0), not from p_0",
       {0.5f, 0.3f, 0.2f, 0, /* p_1 */ 0, 0, 0, 1},
       {0.25f, 0.25f, 0.25f, 0.25f},
       {2},
       {0.9f, 0.9f}},
      {"after a rejection: max(0, p_0 - q_0) = (0.25, 0.05, 0, 0) sums to 0.3, and is "
       "renormalised to (0.833, 0.167, 0, 0) before the last coin draws from it",
       {0.5f, 0.3f, 0.2f, 0, /* p_1 */ 0, 0, 0, 1},
       {0.25f, 0.25f, 0.25f, 0.25f},
       {2},
       {0.9f, 0.5f}},
      {"the last coin: after the first of two drafts is thrown away, the next character is "
       "drawn with coins[2], not coins[1]",
       {0.5f, 0.5f, 0, 0, /* p_1 */ 0, 0, 1, 0, /* p_2 */ 0, 0, 0, 1},
       {0, 0, 1, 0, /* q_1 */ 0, 0, 1, 0},
       {2, 2},
       {0.5f, 0.1f, 0.9f}},
      {"every draft kept (q = p): the character after them is drawn from the last row of p, "
       "p_2, with the last coin",
       {0, 1, 0, 0, /* p_1 */ 0, 0, 1, 0, /* p_2 */ 0.25f, 0.25f, 0.25f, 0.25f},
       {0, 1, 0, 0, /* q_1 */ 0, 0, 1, 0},
       {1, 2},
       {0.99f, 0.99f, 0.6f}},
  };
  return cases;
}

}  // namespace

Verification accept_drafts(std::span<const float> p, std::span<const float> q,
                           std::span<const TokenId> drafted, std::span<const float> coins,
                           std::size_t V) {
  const std::size_t k = drafted.size();
  if (p.size() != (k + 1) * V || q.size() != k * V || coins.size() != k + 1)
    throw std::invalid_argument("accept_drafts: p must be (k+1, V), q (k, V), coins (k+1)");
  static ExerciseSwitch use("12", "accept_drafts");
  const auto same = [](const Verification& yours, const Verification& theirs) {
    return compare_exactly(yours.accepted == theirs.accepted && yours.next == theirs.next,
                           counted(yours.accepted, "draft") + " kept, then character " +
                               std::to_string(yours.next) + ", where the reference keeps " +
                               std::to_string(theirs.accepted) + ", then character " +
                               std::to_string(theirs.next));
  };
  static const bool checked_the_edges = [&] {  // once, before the first verification
    if (use.yours()) {
      for (const RuleCase& c : rule_cases()) {
        use.returns(
            reference::accept_drafts, mine::accept_drafts, same,
            [&] { return std::string("a case of the rule, ") + c.part; }, std::span(c.p),
            std::span(c.q), std::span(c.drafted), std::span(c.coins), std::size_t{4});
      }
    }
    return true;
  }();
  (void)checked_the_edges;
  return use.returns(
      reference::accept_drafts, mine::accept_drafts, same,
      [&] { return counted(k, "draft") + " over " + counted(V, "character"); }, p, q, drafted,
      coins, V);
}

}  // namespace tang
