// EXERCISE 13: which positions a cache on a budget keeps.
//
// std::vector<std::size_t> positions_to_keep(received, budget, sinks, window)
//
//   received  (n) how much attention each held position has drawn so far,
//             summed over heads, layers and queries; index 0 is the oldest
//   budget    how many positions may stay
//   sinks     how many of the oldest to keep whatever they drew
//   window    how many of the newest to keep whatever they drew
//
// Returns the indices of the positions kept, in increasing order:
//   - every index when n <= budget (nothing needs to go);
//   - otherwise exactly `budget` of them: the first `sinks`, the last `window`,
//     and, to fill the budget, the ones in between that drew the most attention
//     (the "heavy hitters"); between two that drew the same, the older stays.
// Throws std::invalid_argument when sinks + window > budget, or budget is 0, even
// when n <= budget (the arguments are wrong whatever is held).
//
// One function, three policies (dropping_cache.hpp):
//   a recent window           sinks 0, window = budget
//   sinks and a window        sinks 4, window = budget - 4
//   heavy hitters and window  sinks 0, window = budget / 2, the rest by attention
//
// Think before you write: why must the newest position always stay, whatever
// it drew? And which positions compete for the places left over?
// Hint: ties decide which of two equal positions stays; a sort that keeps the
// order of equals, or a comparison that says what to do with them, settles it.
// Tests: ctest --preset yours -L '^yours_13$' (tests/exercises/exercise_13_test.cpp).

#include "13_cache_budget/exercise/positions_to_keep.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "errors.hpp"

namespace tang::mine {

std::vector<std::size_t> positions_to_keep(std::span<const float> received, std::size_t budget,
                                           std::size_t sinks, std::size_t window) {
  (void)received, (void)budget, (void)sinks, (void)window;
  throw NotImplemented(
      "not implemented yet: see exercise 13 (lessons/13_cache_budget/exercise/"
      "positions_to_keep.cpp)");
}

}  // namespace tang::mine
