// top_k.hpp: keep only the k most likely characters.
//
// At a high temperature thousands of unlikely characters together take a
// large share of the probability. Two cures, applied in this order:
//   top-k  (this file) keep the k highest logits, set the rest to -infinity
//   top-p  ("nucleus", exercise 03) keep the smallest set of most likely
//          characters whose probabilities add up to at least p
#pragma once

#include <span>

namespace tang {

// Keeps every logit >= the k-th largest (ties at the border stay, as PyTorch's
// masked_fill does); the others become -infinity. k = 0 or k >= size keeps all.
void top_k_filter(std::span<float> logits, std::size_t k);

}  // namespace tang
