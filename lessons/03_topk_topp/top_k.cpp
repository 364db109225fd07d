#include "03_topk_topp/top_k.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace tang {

void top_k_filter(std::span<float> logits, std::size_t k) {
  if (k == 0 || k >= logits.size()) return;
  // The k largest, largest first: the last of them is the k-th largest.
  // partial_sort_copy looks at each logit once, against the smallest of the
  // k kept so far, and sorts only those k.
  std::vector<float> largest(k);
  std::partial_sort_copy(logits.begin(), logits.end(), largest.begin(), largest.end(),
                         std::greater<float>());
  const float kth = largest.back();
  for (float& z : logits) {
    if (z < kth) z = -std::numeric_limits<float>::infinity();
  }
}

}  // namespace tang
