// EXERCISE 10a: grouped-query attention over a cache.
//
// A grouped model has NH query heads but only KVH key/value heads (KVH divides
// NH). Its cache keeps W = 2 KVH HS floats per position and layer instead of
// lesson 06's 2C: NH / KVH times less. It keeps them head by head, not position by
// position as lesson 06's does: a head then reads its keys as one block, which
// memory streams fast at a long context.
// Shapes (row-major floats; HS = C / NH, W = 2 KVH HS, T_max = capacity):
//   proj   (T, C + W)           row t (stride C + W): q (C) | keys (KVH, HS) |
//                               values (KVH, HS) of the new position start+t
//   cache  (2, KVH, T_max, HS)  one layer's cache, head by head: [0][g] is key
//                               head g, [1][g] value head g; row j (stride HS)
//                               is position j
//   out    (T, C)               row t (stride C): the NH heads' outputs side by side
//
// void grouped_attention_with_cache(out, proj, cache, capacity, start, T, C, NH, KVH)
//   1. Append: for t = 0 .. T-1 and every key/value head g, copy the new position's
//      key head g (columns C + g HS .. of row t of proj) into row start+t of the
//      cache's key head g, and its value head g (columns C + KVH HS + g HS ..) into
//      row start+t of value head g. The cache is kept head by head, each head's
//      capacity rows back to back: key head g's row j starts at (g capacity + j) HS,
//      value head g's at ((KVH + g) capacity + j) HS. Rows 0 .. start-1 are already
//      there; do not touch any row past start+T-1.
//   2. Attend: new row t is position start+t and sees positions 0 .. start+t
//      (n = start+t+1 of them). Query head h (columns h HS .. h HS+HS-1 of row t of
//      proj) reads key/value head g = h / (NH / KVH). Its output goes to columns
//      h HS .. h HS+HS-1 of row t of out. common/ops.hpp's ops::attend does one head
//      if you pass it that head's query, its key and value rows (row stride HS: they
//      lie back to back) and C = HS, NH = 1; it needs n floats of scratch for the
//      weights (e.g. a std::vector<float>). Then the arithmetic is the uncached
//      model's, and the answer the same bits (the tests check it).
//
// Hints: your exercise 06a (lessons/06_kvcache/exercise/attention_with_cache.cpp)
// is the same step with one key/value head per query head; common/attention_inputs.cpp
// shows which key/value head each query head reads in the uncached model.
// Tests: ctest --preset yours -L '^yours_10a$' (tests/exercises/exercise_10a_test.cpp).

#include "10_cache_size/exercise/grouped_attention.hpp"

#include <vector>

#include "errors.hpp"
#include "ops.hpp"

namespace tang::mine {

void grouped_attention_with_cache(float* out, const float* proj, float* cache, std::size_t capacity,
                                  std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                  std::size_t KVH) {
  (void)out, (void)proj, (void)cache, (void)capacity, (void)start, (void)T, (void)C, (void)NH,
      (void)KVH;
  throw NotImplemented(
      "not implemented yet: see exercise 10a "
      "(lessons/10_cache_size/exercise/grouped_attention.cpp)");
}

}  // namespace tang::mine
