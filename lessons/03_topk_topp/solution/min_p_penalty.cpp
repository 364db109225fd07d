// SOLUTION to exercise 03b (the learner's file is exercise/min_p_penalty.cpp,
// whose comment specifies the behaviour): a set of ids, the largest
// probability and a running sum.

#include "03_topk_topp/exercise/min_p_penalty.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace tang::reference {

void repetition_penalty(std::span<float> logits, std::span<const TokenId> recent, float penalty) {
  if (!(penalty > 0.0f)) throw std::invalid_argument("repetition_penalty: the penalty must be > 0");
  // the distinct ids, every one checked before any logit changes
  std::set<TokenId> ids;
  for (const TokenId id : recent) {
    if (id < 0 || static_cast<std::size_t>(id) >= logits.size()) {
      throw std::invalid_argument("repetition_penalty: id " + std::to_string(id) +
                                  " is outside the vocabulary of " + std::to_string(logits.size()) +
                                  " characters");
    }
    ids.insert(id);
  }
  // each once: both ways make the character less likely
  for (const TokenId id : ids) {
    float& z = logits[static_cast<std::size_t>(id)];
    z = z > 0.0f ? z / penalty : z * penalty;
  }
}

void min_p_filter(std::span<float> probabilities, float min_p) {
  if (!(min_p >= 0.0f && min_p <= 1.0f))
    throw std::invalid_argument("min_p_filter: min_p must be in [0, 1]");
  if (min_p == 0.0f || probabilities.empty()) return;
  const float largest = *std::max_element(probabilities.begin(), probabilities.end());
  const float border = min_p * largest;
  // zero what is below the border, add up what stays, in id order
  double total = 0.0;
  for (float& p : probabilities) {
    if (p >= border) {
      total += p;
    } else {
      p = 0.0f;
    }
  }
  // renormalise the kept ones (the zeros stay 0)
  const auto sum = static_cast<float>(total);
  for (float& p : probabilities) {
    if (p != 0.0f) p /= sum;
  }
}

}  // namespace tang::reference
