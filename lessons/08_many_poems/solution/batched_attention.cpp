// SOLUTION to exercise 08b (the learner's file is exercise/batched_attention.cpp,
// whose comment specifies the behaviour).

#include "08_many_poems/exercise/batched_attention.hpp"

#include <algorithm>
#include <vector>

#include "ops.hpp"

namespace tang::reference {

void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH) {
  std::vector<float> weights;  // (NH, n) scratch for ops::attend
  for (std::size_t b = 0; b < B; ++b) {
    const float* row = qkv + b * 3 * C;    // q | k | v of sequence b's new position
    const std::size_t n = lengths[b] + 1;  // its cached positions and the new one
    std::copy(row + C, row + 2 * C, k_caches[b] + lengths[b] * C);
    std::copy(row + 2 * C, row + 3 * C, v_caches[b] + lengths[b] * C);
    weights.resize(NH * n);
    ops::attend(out + b * C, weights.data(), row, k_caches[b], v_caches[b], C, n, C, NH);
  }
}

}  // namespace tang::reference
