// EXERCISE 02: sample one character with temperature, from one uniform draw.
//
// TokenId sample_with_temperature(logits, temperature, coin)
//
//   logits       one score per character (id = index); some may be -infinity
//                (banned characters), at least one is finite
//   temperature  T >= 0
//   coin         a uniform random number in [0, 1)
//
// Behaviour, exactly:
//   1. T == 0 means greedy: return the id of the largest logit (the smallest id
//      when several are equal). The coin is ignored.
//   2. Otherwise the probabilities are p = softmax(logits / T):
//        p[i] = exp(z[i] - max) / sum_j exp(z[j] - max),   z = logits / T,
//      subtracting the largest z first so that exp never overflows (logits of
//      1000 must work). A logit of -infinity gets p = 0.
//   3. Walk the ids in order 0, 1, 2, ... adding up p, and return the FIRST id
//      whose running total is strictly greater than the coin. Example:
//      p = (0.25, 0.75): a coin in [0, 0.25) gives 0, a coin in [0.25, 1) gives 1
//      (a coin of exactly 0.25 gives 1).
//   4. Rounding can leave the total just below the coin (a coin of 0.9999999):
//      then return the last id whose probability is not zero. Never return a
//      character with p = 0.
//   `logits` is read only; work on a copy.
//
// Hints: lesson 01's softmax_in_place (next_char.hpp) and lesson 02's
// temperature.hpp show the pieces; write the loop of step 3 yourself.
// Tests: ctest --preset learner -L exercise_02 (tests/exercises/exercise_02_test.cpp).

#include "exercise/sample_with_temperature.hpp"

#include "errors.hpp"

namespace tang::mine {

TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin) {
  (void)logits, (void)temperature, (void)coin;
  throw NotImplemented(
      "your exercise is not done yet: complete "
      "lessons/02_temperature/exercise/sample_with_temperature.cpp");
}

}  // namespace tang::mine
