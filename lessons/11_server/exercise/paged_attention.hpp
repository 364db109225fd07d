// exercise/paged_attention.hpp: EXERCISE 11a, attention through a block table.
//
// Lesson 06's cache keeps position p of a text in row p of the text's own
// (T_max, C) key and value matrices. The paged cache keeps every text's keys
// and values in one pool per layer, (blocks x block_size, C), cut into blocks
// of block_size rows; a text owns the blocks its table lists, in order, so its
// position p lives in pool row
//
//   table[p / block_size] * block_size + p % block_size
//
// PagedCache::attend (paged_forward.cpp) calls this in every layer of
// every step. It runs the reference solution (solution/paged_attention.cpp)
// unless started with --yours 11a; then YOUR exercise/paged_attention.cpp.
// Check yours with
//   cmake --build --preset release --target exercise_11a_test
//   ctest --preset yours -L '^yours_11a$'
//   build/release/lessons/11_server/lesson_11_server --yours 11a --section 11
//
//   qkv     (T, 3C)                    row t: q | k | v of the new position start + t
//   k_pool  (blocks x block_size, C)   this layer's keys, every text's
//   v_pool  (blocks x block_size, C)   this layer's values
//   table   the text's blocks: at least (start + T + block_size - 1) / block_size
//   out     (T, C)                     row t: the heads' outputs side by side
#pragma once

#include <cstddef>
#include <span>

#include "11_server/block_table.hpp"

namespace tang::mine {

// Lesson 06's attention_with_cache (exercise 06a) with the rows found through
// the table: write the keys and values of positions start .. start+T-1 into
// their pool rows, then let new row t attend over positions 0 .. start+t with
// ops::attend_rows (common/ops.hpp), whose sums are ops::attend's: the output
// is the contiguous cache's, bit for bit.
void paged_attention_with_cache(float* out, const float* qkv, float* k_pool, float* v_pool,
                                std::span<const BlockId> table, std::size_t block_size,
                                std::size_t start, std::size_t T, std::size_t C, std::size_t NH);

}  // namespace tang::mine

// The reference solution's (solution/paged_attention.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::paged_attention_with_cache) paged_attention_with_cache;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 11a yours,
// checked against it at every call (paged_attention_switch.cpp).
namespace tang {
decltype(mine::paged_attention_with_cache) paged_attention_with_cache;
}  // namespace tang
