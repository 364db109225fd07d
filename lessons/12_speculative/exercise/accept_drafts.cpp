// EXERCISE 12: speculative decoding's accept/reject step (see accept_drafts.hpp).
//
// Verification accept_drafts(p, q, drafted, coins, V)
//   p       (k+1, V) row i: the model's sampling distribution for the character
//           after the context and drafted[0 .. i-1]; row k is after all k drafts
//   q       (k, V)   row i: the distribution the drafter drew drafted[i] from
//   drafted (k)      the drafter's characters
//   coins   (k+1)    independent, each uniform in [0, 1)
//   Returns {how many drafts are kept (the first ones), the character written after them}.
//   The switch has checked the sizes: p.size() == (k+1) V, q.size() == k V, coins k + 1.
//
// What it must guarantee (working out how is the exercise):
//   1. The text is the model's, whatever q is. Take one position: a draft x arrives
//      with probability q(x) and is kept with some probability a(x) you choose; when
//      it is not kept (at draft i: the rows p_i and q_i), the character is drawn
//      from some distribution r you choose, and nothing after it is kept.
//      Each character must come out with probability p(x) in all. Which a and r do
//      that, with a as large as it can be (so that a drafter that agrees with the
//      model has every draft kept)? Check your r: it must be a distribution, so what
//      does it sum to before you scale it?
//   2. The coins. coins[i] alone decides drafted[i]: keep it exactly when coins[i]
//      falls in [0, a), which a coin uniform in [0, 1) does with probability a.
//      coins[k] alone draws the one character written after the drafts kept (after a
//      rejection, or from row k of p when every draft was kept), whichever draft was
//      thrown away, with tang::sample_from(probabilities, coin) (lesson 02's draw:
//      include "02_temperature/exercise/sample_with_temperature.hpp" and write the
//      tang::, or the name finds your exercise 02). It expects values that sum to
//      1: character x owns a slice of [0, 1) as wide as its value, and a coin past
//      the total falls on the last character with a value above 0. When every draft
//      is kept, that last draw (from row k, after them all) is the "bonus".
//   3. The edges. The tests also pass drafts where q_i is 0 (as if drawn elsewhere):
//      nothing may be divided by it, and what your rule does there should follow
//      from the rest of it. A coin exactly equal to a is not in [0, a); a draft
//      where both p_i and q_i are 0 is not kept. What you draw from after a
//      rejection can sum to 0 only by float rounding: then draw from p_i itself.
//      At temperature 0 every row is certain (1 on one character, 0 elsewhere).
//
// Two checks before the tests: q = p keeps every draft whatever the coins; a
// drafter sure of a character (q 1 on it) that p_0 gives 0 never has it kept, and
// the character written is then one p_0 can write.
//
// Tests: ctest --preset yours -L '^yours_12$'; then
// lesson_12_speculative --yours 12 --section 12 checks yours at every verification.
#include "12_speculative/exercise/accept_drafts.hpp"

#include "errors.hpp"

namespace tang::mine {

Verification accept_drafts(std::span<const float> p, std::span<const float> q,
                           std::span<const TokenId> drafted, std::span<const float> coins,
                           std::size_t V) {
  (void)p, (void)q, (void)drafted, (void)coins, (void)V;
  throw NotImplemented(
      "not implemented yet: see exercise 12 (lessons/12_speculative/exercise/accept_drafts.cpp)");
}

}  // namespace tang::mine
