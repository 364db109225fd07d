// EXERCISE 03: top-p ("nucleus") filtering.
//
// void top_p_filter(probabilities, p)
//
//   probabilities  one probability per character (id = index), each >= 0,
//                  summing to 1 (the output of softmax)
//   p              in (0, 1]
//
// Behaviour, exactly:
//   1. p >= 1: change nothing.
//   2. Otherwise rank the characters by probability, largest first; equal
//      probabilities rank by id, the smaller id first.
//   3. Walk that ranking, adding up probabilities, and keep every character up
//      to and INCLUDING the first one at which the running total reaches p
//      (total >= p). Example: (0.5, 0.25, 0.25) with p = 0.75 keeps ids 0 and 1
//      (0.5 + 0.25 reaches 0.75 exactly); id 2 ties with id 1 but ranks after it.
//   4. Set every other probability to 0 and divide the kept ones by their sum,
//      so that the result sums to 1 again. The example becomes (2/3, 1/3, 0).
//
// This is the rule of lessons/03_topk_topp/top_k_top_p.hpp; try not to peek at
// top_k_top_p.cpp until your version passes.
// Tests: ctest --preset learner -L exercise_03 (tests/exercises/exercise_03_test.cpp).

#include "exercise/top_p.hpp"

#include "errors.hpp"

namespace tang::mine {

void top_p_filter(std::span<float> probabilities, float p) {
  (void)probabilities, (void)p;
  throw NotImplemented(
      "your exercise is not done yet: complete lessons/03_topk_topp/exercise/top_p.cpp");
}

}  // namespace tang::mine
