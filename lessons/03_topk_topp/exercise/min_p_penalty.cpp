// EXERCISE 03b: a repetition penalty and min-p, as llama.cpp does them.
//
// The third block of lesson 03's section 3 writes with both (min_p_sampler.cpp),
// in this order: the penalty on the model's logits, then the temperature,
// softmax, min-p, and exercise 02's draw. Its settings are llama.cpp's
// defaults: --min-p 0.05, --repeat-penalty 1.1 over --repeat-last-n 64
// characters (the penalty's default for years; recent versions ship 1.0, off).
//
// void repetition_penalty(logits, recent, penalty)
//
//   logits   (V) one score per character (id = index), as the model gives
//            them; some may be -infinity (banned characters)
//   recent   (R) the characters written last (the lesson passes R <= 64); ids
//            may repeat; may be empty (R = 0)
//   penalty  > 0; 1 changes nothing (the lesson uses 1.1)
//
// Behaviour, exactly (the tests compare bits):
//   1. Check first: a penalty that is not > 0 (NaN included), or an id in
//      `recent` outside 0 .. logits.size()-1, is an error: throw
//      std::invalid_argument and leave `logits` untouched.
//   2. For each DISTINCT id in `recent`, ONCE however often it occurs: a logit
//      z > 0 becomes z / penalty, a logit z <= 0 becomes z * penalty (float
//      arithmetic). Both make the character less likely; dividing alone would
//      make a negative logit larger (-1 / 1.1 = -0.91). -infinity stays
//      -infinity, 0 stays 0. Every other logit stays as it is.
//      Example: logits (2, -1, 0, 3), recent (0, 1, 0, 2), penalty 2 give
//      (1, -2, 0, 3): id 0 is halved once, not twice; id 3 is not recent.
//   A penalty of 1 changes nothing: z / 1 = z * 1 = z.
//
// void min_p_filter(probabilities, min_p)
//
//   probabilities  (V) one per character (id = index), each >= 0, summing to 1
//                  (the output of softmax); some may already be 0
//   min_p          in [0, 1]; anything else (NaN included) is an error: throw
//                  std::invalid_argument
//
//   1. min_p = 0: change nothing (not even the renormalisation below).
//   2. Otherwise the border is min_p * (the largest probability), ONE float
//      multiplication. Keep every probability >= the border: ties at the
//      border stay (with min_p = 1, every probability equal to the largest
//      stays). Set the others to 0.
//   3. Add the kept probabilities up in a DOUBLE, over the ids in order 0, 1,
//      2, ..., and divide each kept one by that total converted to float
//      once, so that they sum to 1 again.
//   Example: (0.5, 0.25, 0.125, 0.125) with min_p = 0.5: the border is 0.25;
//   id 1 sits on it and stays, ids 2 and 3 go; the total is 0.75 and the
//   result (2/3, 1/3, 0, 0). With min_p = 0.25 the border is 0.125 and all
//   four stay (divided by their total, 1: unchanged).
//
// Hint: a std::set of the ids in `recent`; std::max_element; one loop that
// zeroes and adds up, one that divides.
// Tests: ctest --preset yours -L '^yours_03b$' (tests/exercises/exercise_03b_test.cpp).

#include "03_topk_topp/exercise/min_p_penalty.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "errors.hpp"

namespace tang::mine {

namespace {
const char* const kTodo =
    "not implemented yet: see exercise 03b (lessons/03_topk_topp/exercise/min_p_penalty.cpp)";
}

void repetition_penalty(std::span<float> logits, std::span<const TokenId> recent, float penalty) {
  (void)logits, (void)recent, (void)penalty;
  throw NotImplemented(kTodo);
}

void min_p_filter(std::span<float> probabilities, float min_p) {
  (void)probabilities, (void)min_p;
  throw NotImplemented(kTodo);
}

}  // namespace tang::mine
