// EXERCISE 03: top-p ("nucleus") filtering.
//
// void top_p_filter(probabilities, p)
//
//   probabilities  (V) one probability per character (id = index), each >= 0,
//                  summing to 1 (the output of softmax)
//   p              in (0, 1]
//
// Behaviour, exactly (the tests compare bits, so follow the arithmetic too):
//   1. p >= 1: change nothing.
//   2. Otherwise rank the characters by probability, largest first; equal
//      probabilities rank by id, the smaller id first.
//   3. Walk that ranking, adding the probabilities up in a DOUBLE, and keep
//      every character up to and INCLUDING the first one at which the running
//      total reaches p (total >= p). Example: (0.5, 0.25, 0.25) with p = 0.75
//      keeps ids 0 and 1 (0.5 + 0.25 reaches 0.75 exactly); id 2 ties with id 1
//      but ranks after it. If the total never reaches p (rounding), keep all.
//   4. Set every other probability to 0 and divide each kept one by the
//      running total where the walk stopped, converted to float once, so that
//      the result sums to 1 again. The example becomes (2/3, 1/3, 0).
//
// Hint: a std::vector of the V ids, std::sort with a comparison that follows rule 2.
// Tests: ctest --preset yours -L '^yours_03$' (tests/exercises/exercise_03_test.cpp;
// -L yours_03 alone would run exercise 03b's tests too).

#include "03_topk_topp/exercise/top_p.hpp"

#include <algorithm>
#include <vector>

#include "errors.hpp"

namespace tang::mine {

void top_p_filter(std::span<float> probabilities, float p) {
  (void)probabilities, (void)p;
  throw NotImplemented(
      "not implemented yet: see exercise 03 (lessons/03_topk_topp/exercise/top_p.cpp)");
}

}  // namespace tang::mine
