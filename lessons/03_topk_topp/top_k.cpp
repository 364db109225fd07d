#include "top_k.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace tang {

void top_k_filter(std::span<float> logits, std::size_t k) {
  if (k == 0 || k >= logits.size()) return;
  // One walk over the logits keeping the k largest seen so far, largest first. Most
  // logits lose against the smallest kept and cost one comparison; a winner takes its
  // place in order (about k ln(V / k) times in all, for logits in random order).
  std::vector<float> largest(logits.begin(), logits.begin() + static_cast<std::ptrdiff_t>(k));
  std::sort(largest.begin(), largest.end(), std::greater<float>());
  for (std::size_t i = k; i < logits.size(); ++i) {
    const float z = logits[i];
    if (z <= largest.back()) continue;
    largest.pop_back();
    largest.insert(std::upper_bound(largest.begin(), largest.end(), z, std::greater<float>()), z);
  }
  const float kth = largest.back();  // the k-th largest: ties with it stay
  for (float& z : logits) {
    if (z < kth) z = -std::numeric_limits<float>::infinity();
  }
}

}  // namespace tang
