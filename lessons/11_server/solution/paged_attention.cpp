// SOLUTION to exercise 11a (the learner's file is exercise/paged_attention.cpp,
// whose comment specifies the behaviour).
//
// vLLM's PagedAttention kernel does the same on a GPU: each query reads the
// block table to find where its keys are, instead of assuming one slab.
#include "11_server/exercise/paged_attention.hpp"

#include <algorithm>
#include <vector>

#include "ops.hpp"

namespace tang::reference {

void paged_attention_with_cache(float* out, const float* qkv, float* k_pool, float* v_pool,
                                std::span<const BlockId> table, std::size_t block_size,
                                std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  const std::size_t total = start + T;   // positions after this step
  std::vector<std::size_t> rows(total);  // (total) pool row of each position
  for (std::size_t p = 0; p < total; ++p)
    rows[p] = table[p / block_size] * block_size + p % block_size;

  // 1. write the keys and values of the new positions start .. start+T-1 into their rows
  for (std::size_t t = 0; t < T; ++t) {
    const float* row = qkv + t * 3 * C;
    std::copy(row + C, row + 2 * C, k_pool + rows[start + t] * C);
    std::copy(row + 2 * C, row + 3 * C, v_pool + rows[start + t] * C);
  }

  // 2. new row t is position start+t: it sees positions 0 .. start+t
  std::vector<float> weights(NH * total);  // (NH, n) scratch for ops::attend_rows
  for (std::size_t t = 0; t < T; ++t) {
    ops::attend_rows(out + t * C, weights.data(), qkv + t * 3 * C, k_pool, v_pool, rows.data(),
                     start + t + 1, C, NH);
  }
}

}  // namespace tang::reference
