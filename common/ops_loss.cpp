// The loss of ops.hpp, both halves: softmax + cross-entropy, the mean of
// -log p[target] over N positions (lesson 00's training and its --eval).
#include <algorithm>
#include <cmath>

#include "ops.hpp"

namespace tang::ops {

float crossentropy_forward(float* losses, float* probs, const float* logits, const TokenId* targets,
                           std::size_t N, std::size_t V) {
  double total = 0.0;
  for (std::size_t n = 0; n < N; ++n) {
    const float* z = logits + n * V;
    float* p = probs + n * V;
    const float max = *std::max_element(z, z + V);
    const float target_logit = z[static_cast<std::size_t>(targets[n])];  // before p overwrites z
    float sum = 0.0f;
    for (std::size_t i = 0; i < V; ++i) {
      p[i] = std::exp(z[i] - max);
      sum += p[i];
    }
    for (std::size_t i = 0; i < V; ++i) p[i] /= sum;
    // -log p[target] = log(sum) - (z[target] - max), without taking the log of a tiny p
    losses[n] = std::log(sum) - (target_logit - max);
    total += losses[n];
  }
  return static_cast<float>(total / static_cast<double>(N));
}

void crossentropy_backward(float* dlogits, const float* probs, const TokenId* targets,
                           std::size_t N, std::size_t V) {
  const float inv_n = 1.0f / static_cast<float>(N);
  for (std::size_t n = 0; n < N; ++n) {
    const float* p = probs + n * V;
    float* d = dlogits + n * V;
    for (std::size_t i = 0; i < V; ++i) d[i] = p[i] * inv_n;
    d[static_cast<std::size_t>(targets[n])] -= inv_n;
  }
}

}  // namespace tang::ops
