// SOLUTION to exercise 03 (the learner's file is exercise/top_p.cpp, whose
// comment specifies the behaviour): a sort and a running sum.

#include "03_topk_topp/exercise/top_p.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace tang::reference {

void top_p_filter(std::span<float> probabilities, float p) {
  if (p >= 1.0f) return;
  // rank the ids: most likely first, equal probabilities by the smaller id
  std::vector<std::size_t> ranking(probabilities.size());
  std::iota(ranking.begin(), ranking.end(), 0);
  std::sort(ranking.begin(), ranking.end(), [&](std::size_t a, std::size_t b) {
    return probabilities[a] != probabilities[b] ? probabilities[a] > probabilities[b] : a < b;
  });
  // walk the ranking until the running total reaches p
  double total = 0.0;
  std::size_t kept = 0;
  while (kept < ranking.size()) {
    total += probabilities[ranking[kept]];
    kept += 1;
    if (total >= p) break;
  }
  // zero the rest, renormalise the kept ones
  for (std::size_t r = kept; r < ranking.size(); ++r) probabilities[ranking[r]] = 0.0f;
  const auto sum = static_cast<float>(total);
  for (std::size_t r = 0; r < kept; ++r) probabilities[ranking[r]] /= sum;
}

}  // namespace tang::reference
