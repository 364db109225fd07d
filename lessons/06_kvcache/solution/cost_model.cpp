// SOLUTION to exercise 06c (the learner's file is exercise/cost_model.cpp,
// whose comment specifies the behaviour).
//
//   steps without the cache:  k_i = min(i, block_size) positions, i = 1 .. n
//   time                   :  sum_i t1 + (k_i - 1) b   against   n t1 with the cache

#include "06_kvcache/exercise/cost_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace tang::reference {

std::size_t positions_without_cache(std::size_t n, std::size_t block_size) {
  std::size_t positions = 0;
  for (std::size_t i = 1; i <= n; ++i) positions += std::min(i, block_size);
  return positions;
}

std::size_t positions_with_cache(std::size_t n) {
  return n;
}

double predicted_speedup(std::size_t n, double t1, double b, std::size_t block_size) {
  if (n == 0 || !(t1 > 0.0) || !(b >= 0.0))
    throw std::invalid_argument("predicted_speedup: needs n > 0, t1 > 0 and b >= 0");
  double without = 0.0;
  for (std::size_t i = 1; i <= n; ++i) {
    const std::size_t k = std::min(i, block_size);  // the window slides past the context
    without += t1 + static_cast<double>(k - 1) * b;
  }
  return without / (static_cast<double>(n) * t1);
}

}  // namespace tang::reference
