// EXERCISE 12: speculative decoding's accept/reject step (see accept_drafts.hpp).
//
// Verification accept_drafts(p, q, drafted, coins, V)
//   p       (k+1, V) row i: the model's sampling distribution for the character
//           after the context and drafted[0 .. i-1]; row k is after all k drafts
//   q       (k, V)   row i: the drafter's distribution that drafted[i] was drawn from
//   drafted (k)      the drafter's characters
//   coins   (k+1)    uniform in [0, 1): coins[i] decides drafted[i]; coins[k]
//                    draws the one character that follows
//   For i = 0, 1, ...: with d = drafted[i], keep d when coins[i] * q_i(d) < p_i(d)
//   (that is, coin < p/q without dividing by a q that may be 0). At the first d
//   not kept, stop: the next character is drawn with coins[k] from the residual
//   r(x) = max(0, p_i(x) - q_i(x)) / (its sum over x), with tang::sample_from
//   (lesson 02's draw, from "02_temperature/exercise/sample_with_temperature.hpp";
//   write the tang::, or the name finds your exercise 02); sum the residual in a
//   double, and should that sum be 0 (only rounding can make it so) draw from
//   p_i itself. When every draft is kept, the next character is drawn with
//   coins[k] from row k of p (the bonus). coins[k] is the one coin for that last
//   draw, whichever draft was rejected.
//   Return {number kept, the next character}.
//
// Example, V = 3, k = 1: p_0 = (0.5, 0.5, 0), q_0 = (0.2, 0.8, 0), drafted = {1}.
// p/q = 0.625 for the draft: coins {0.6, c} keep it (the next from p_1 with c),
// coins {0.7, 0.9} do not: residual (0.3, 0, 0) / 0.3 = (1, 0, 0), next 0.
//
// Tests: ctest --preset yours -L '^yours_12$' (tests/exercises/exercise_12_test.cpp).
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
