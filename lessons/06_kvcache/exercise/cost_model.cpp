// EXERCISE 06c: the cost model of the KV cache.
//
// Writing n characters after a newline (the text starts as "\n"): step i
// (i = 1 .. n) asks for the next character after a text of i characters.
//
//   positions_without_cache(n, block_size)
//     Without the cache, step i runs the whole window through the model: i
//     positions, but never more than block_size (the window slides). Return
//     the sum over the n steps. n = 0 gives 0. (With block_size >= n that is
//     n (n + 1) / 2.)
//   positions_with_cache(n)
//     With the cache, every step runs one position: n.
//   predicted_speedup(n, t1, b, block_size)
//     A step over k positions costs t1 + (k - 1) * b: t1 is what a step costs
//     however many positions it has (every weight read once, the output layer,
//     the draw), b what each more position adds. Without the cache step i has
//     k = min(i, block_size); with it, k = 1 for every step. Return
//       (sum over the steps without the cache) / (n * t1)
//     computed in double, the steps added in order i = 1, 2, ... n.
//     Throw std::invalid_argument when n == 0, t1 <= 0 or b < 0.
//
// Why: 120 characters run 7,260 positions without the cache and 120 with it,
// 60.5 times as many, yet the cache is far less than 60.5 times faster: b is much
// smaller than t1. Your predictions stand next to the measured speed-ups in
// lesson_06_kvcache's section 6.
// Tests: ctest --preset yours -L '^yours_06c$' (tests/exercises/exercise_06c_test.cpp).

#include "06_kvcache/exercise/cost_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "errors.hpp"

namespace tang::mine {

std::size_t positions_without_cache(std::size_t n, std::size_t block_size) {
  (void)n, (void)block_size;
  throw NotImplemented(
      "not implemented yet: see exercise 06c (lessons/06_kvcache/exercise/cost_model.cpp)");
}

std::size_t positions_with_cache(std::size_t n) {
  (void)n;
  throw NotImplemented(
      "not implemented yet: see exercise 06c (lessons/06_kvcache/exercise/cost_model.cpp)");
}

double predicted_speedup(std::size_t n, double t1, double b, std::size_t block_size) {
  (void)n, (void)t1, (void)b, (void)block_size;
  throw NotImplemented(
      "not implemented yet: see exercise 06c (lessons/06_kvcache/exercise/cost_model.cpp)");
}

}  // namespace tang::mine
