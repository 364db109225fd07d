// SOLUTION to exercise 10a (the learner's file is exercise/grouped_attention.cpp,
// whose comment specifies the behaviour).
//
// In PyTorch terms, per layer, with G = NH / KVH query heads per key/value head and
// the cache k_cache, v_cache of shape (KVH, capacity, HS):
//   k_cache[:, start:start+T] = proj[:, C:C+KVH*HS].view(T, KVH, HS).transpose(0, 1)
//   k = k_cache[:, :n].repeat_interleave(G, dim=0)      (never built here)
//   new row t attends over cache rows 0 .. start+t

#include "10_cache_size/exercise/grouped_attention.hpp"

#include <algorithm>
#include <vector>

#include "ops.hpp"

namespace tang::reference {

void grouped_attention_with_cache(float* out, const float* proj, float* cache, std::size_t capacity,
                                  std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                  std::size_t KVH) {
  const std::size_t HS = C / NH, P = C + 2 * KVH * HS;
  const std::size_t group = NH / KVH;           // query heads per key/value head
  float* keys = cache;                          // (KVH, capacity, HS)
  float* values = cache + KVH * capacity * HS;  // (KVH, capacity, HS)

  // 1. append the keys and values of the new positions start .. start+T-1, head by head
  for (std::size_t t = 0; t < T; ++t) {
    const float* row = proj + t * P + C;  // keys (KVH, HS) | values (KVH, HS)
    for (std::size_t g = 0; g < KVH; ++g) {
      std::copy(row + g * HS, row + (g + 1) * HS, keys + (g * capacity + start + t) * HS);
      std::copy(row + (KVH + g) * HS, row + (KVH + g + 1) * HS,
                values + (g * capacity + start + t) * HS);
    }
  }

  // 2. new row t is position start+t: each query head reads its group's key/value head
  std::vector<float> weights(start + T);  // (n) scratch for ops::attend
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t n = start + t + 1;
    for (std::size_t h = 0; h < NH; ++h) {
      const std::size_t g = h / group;
      ops::attend(out + t * C + h * HS, weights.data(), proj + t * P + h * HS,
                  keys + g * capacity * HS, values + g * capacity * HS, HS, n, HS, 1);
    }
  }
}

}  // namespace tang::reference
