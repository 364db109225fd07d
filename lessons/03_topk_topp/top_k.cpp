#include "top_k.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace tang {

void top_k_filter(std::span<float> logits, std::size_t k) {
  if (k == 0 || k >= logits.size()) return;
  // the k-th largest: nth_element puts it where a full sort (largest first)
  // would, with the larger ones before it, without sorting the rest
  std::vector<float> values(logits.begin(), logits.end());
  const auto kth_place = values.begin() + static_cast<std::ptrdiff_t>(k - 1);
  std::nth_element(values.begin(), kth_place, values.end(), std::greater<float>());
  const float kth = *kth_place;
  for (float& z : logits) {
    if (z < kth) z = -std::numeric_limits<float>::infinity();
  }
}

}  // namespace tang
