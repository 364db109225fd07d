// EXERCISE 11a: attention through a block table (see paged_attention.hpp).
//
// Fill in paged_attention_with_cache. Shapes (row-major floats):
//   qkv     (T, 3C)                   row t (stride 3C): q | k | v of position start+t
//   k_pool  (blocks x block_size, C)  row r (stride C): this layer's keys, every text's
//   v_pool  (blocks x block_size, C)  row r (stride C): this layer's values
//   table   (at least (start + T + block_size - 1) / block_size) the text's blocks, in order
//   out     (T, C)                    row t (stride C): the heads' outputs side by side
//
// What it must do, in order:
//
//   1. For every position p in 0 .. start+T-1, its pool row:
//        table[p / block_size] * block_size + p % block_size
//   2. Copy the key (columns C .. 2C-1 of qkv row t) and the value (columns
//      2C .. 3C-1) of each new position start+t into its row of k_pool and v_pool.
//   3. For each new row t, attend over positions 0 .. start+t: call
//        ops::attend_rows(out + t*C, weights, qkv + t*3C, k_pool, v_pool, rows, n, C, NH)
//      with n = start + t + 1, `rows` (n) the pool rows (std::size_t) of
//      positions 0 .. n-1, and `weights` (NH, n) a scratch of NH x n floats
//      (a std::vector each).
//
// Your exercise 06a (lessons/06_kvcache/exercise/attention_with_cache.cpp) did
// the same with row p for position p. Nothing else changes: the output is the
// contiguous cache's, bit for bit, and the tests check that.
// Tests: ctest --preset yours -L '^yours_11a$' (tests/exercises/exercise_11a_test.cpp).
#include "11_server/exercise/paged_attention.hpp"

#include <cstddef>
#include <vector>

#include "11_server/block_table.hpp"
#include "errors.hpp"
#include "ops.hpp"

namespace tang::mine {

void paged_attention_with_cache(float* out, const float* qkv, float* k_pool, float* v_pool,
                                std::span<const BlockId> table, std::size_t block_size,
                                std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  (void)out, (void)qkv, (void)k_pool, (void)v_pool, (void)table, (void)block_size, (void)start,
      (void)T, (void)C, (void)NH;
  throw NotImplemented(
      "not implemented yet: see exercise 11a (lessons/11_server/exercise/paged_attention.cpp)");
}

}  // namespace tang::mine
