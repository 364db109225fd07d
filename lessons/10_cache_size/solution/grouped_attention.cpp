// SOLUTION to exercise 10a (the learner's file is exercise/grouped_attention.cpp,
// whose comment specifies the behaviour).
//
// In PyTorch terms, per layer, with G = NH / KVH query heads per key/value head:
//   cache[start:start+T] = proj[:, C:]
//   k = cache[:n, :W/2].view(n, KVH, HS).repeat_interleave(G, dim=1)   (never built here)
//   new row t attends over cache rows 0 .. start+t

#include "10_cache_size/exercise/grouped_attention.hpp"

#include <algorithm>
#include <vector>

#include "ops.hpp"

namespace tang::reference {

void grouped_attention_with_cache(float* out, const float* proj, float* cache, std::size_t start,
                                  std::size_t T, std::size_t C, std::size_t NH, std::size_t KVH) {
  const std::size_t HS = C / NH, W = 2 * KVH * HS, P = C + W;
  const std::size_t group = NH / KVH;  // query heads per key/value head

  // 1. append the keys and values of the new positions start .. start+T-1
  for (std::size_t t = 0; t < T; ++t)
    std::copy(proj + t * P + C, proj + (t + 1) * P, cache + (start + t) * W);

  // 2. new row t is position start+t: each query head reads its group's key/value head
  std::vector<float> weights(start + T);  // (n) scratch for ops::attend
  const float* keys = cache;              // key head g of position j at keys + j W + g HS
  const float* values = cache + KVH * HS;
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t n = start + t + 1;
    for (std::size_t h = 0; h < NH; ++h) {
      const std::size_t g = h / group;
      ops::attend(out + t * C + h * HS, weights.data(), proj + t * P + h * HS, keys + g * HS,
                  values + g * HS, W, n, HS, 1);
    }
  }
}

}  // namespace tang::reference
