// SOLUTION to exercise 13 (the learner's file is exercise/positions_to_keep.cpp,
// whose comment specifies the behaviour).

#include "13_cache_budget/exercise/positions_to_keep.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace tang::reference {

std::vector<std::size_t> positions_to_keep(std::span<const float> received, std::size_t budget,
                                           std::size_t sinks, std::size_t window) {
  if (budget == 0 || sinks + window > budget)
    throw std::invalid_argument("positions_to_keep: needs 0 < sinks + window <= budget");
  const std::size_t n = received.size();
  std::vector<std::size_t> kept(n);
  std::iota(kept.begin(), kept.end(), std::size_t{0});
  if (n <= budget) return kept;
  // the middle, sinks .. n-window-1, by attention drawn, most first (the older on a tie)
  std::vector<std::size_t> middle(kept.begin() + static_cast<std::ptrdiff_t>(sinks),
                                  kept.end() - static_cast<std::ptrdiff_t>(window));
  std::stable_sort(middle.begin(), middle.end(),
                   [&](std::size_t a, std::size_t b) { return received[a] > received[b]; });
  middle.resize(budget - sinks - window);
  kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(sinks),
             kept.end() - static_cast<std::ptrdiff_t>(window));
  kept.insert(kept.end(), middle.begin(), middle.end());
  std::sort(kept.begin(), kept.end());
  return kept;
}

}  // namespace tang::reference
