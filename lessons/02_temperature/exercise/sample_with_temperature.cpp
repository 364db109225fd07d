// EXERCISE 02: draw one character, with temperature, from one uniform coin.
//
// TokenId sample_from(probabilities, coin)
//
//   probabilities  (V) one per character (id = index), each >= 0, summing to 1
//                  (up to rounding); at least one is above 0
//   coin           a uniform random number in [0, 1)
//
//   Walk the ids in order 0, 1, 2, ... adding up the probabilities in a float,
//   and return the FIRST id whose running total is strictly greater than the
//   coin. Example: p = (0.25, 0.75): a coin in [0, 0.25) gives 0, a coin in
//   [0.25, 1) gives 1 (a coin of exactly 0.25 gives 1). Rounding can leave the
//   total just below the coin (a coin of 0.9999999): then return the last id
//   whose probability is not zero. Never return a character with p = 0.
//
// TokenId sample_with_temperature(logits, temperature, coin)
//
//   logits       (V) one score per character (id = index); some may be -infinity
//                (banned characters), at least one is finite
//   temperature  T >= 0
//
//   1. T == 0 means greedy: return the id of the largest logit (the smallest id
//      when several are equal). The coin is ignored.
//   2. Otherwise, on a copy (a std::vector<float>, V long): subtract the largest
//      logit from every logit, THEN divide by T (z = (logit - max) / T; dividing
//      first would overflow for a tiny T such as 1e-40: 5 / 1e-40 is infinite),
//      turn them into probabilities with softmax_in_place (common/sampling.hpp),
//      and return sample_from(probabilities, coin).
//   `logits` is read only.
//
// Hint: softmax_in_place and argmax are in common/sampling.hpp; write the
// walk of sample_from yourself.
// Tests: ctest --preset yours -L '^yours_02$' (tests/exercises/exercise_02_test.cpp).

#include "02_temperature/exercise/sample_with_temperature.hpp"

#include <vector>

#include "errors.hpp"
#include "sampling.hpp"

namespace tang::mine {

namespace {
const char* const kTodo =
    "not implemented yet: see exercise 02 "
    "(lessons/02_temperature/exercise/sample_with_temperature.cpp)";
}

TokenId sample_from(std::span<const float> probabilities, float coin) {
  (void)probabilities, (void)coin;
  throw NotImplemented(kTodo);
}

TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin) {
  (void)logits, (void)temperature, (void)coin;
  throw NotImplemented(kTodo);
}

}  // namespace tang::mine
