// EXERCISE 10a: grouped-query attention over a cache.
//
// A grouped model has NH query heads but only KVH key/value heads (KVH divides
// NH). Its cache keeps W = 2 KVH HS floats per position and layer instead of
// lesson 06's 2C: NH / KVH times less. Shapes: see exercise/grouped_attention.hpp.
//
// void grouped_attention_with_cache(out, proj, cache, start, T, C, NH, KVH)
//   1. Append: for t = 0 .. T-1 copy columns C .. C+W-1 of row t of proj (the
//      new position's keys, then its values) into row start+t of cache. Rows
//      0 .. start-1 are already there; do not touch any row past start+T-1.
//   2. Attend: new row t is position start+t and sees positions 0 .. start+t
//      (n = start+t+1 of them). Query head h (columns h HS .. h HS+HS-1 of row t
//      of proj) reads key/value head g = h / (NH / KVH): the keys at columns
//      g HS .. of each cache row, the values at columns KVH HS + g HS .. . Its
//      output goes to columns h HS .. h HS+HS-1 of row t of out.
//      common/ops.hpp's ops::attend does one head if you pass it that head's
//      query, keys and values with C = HS and NH = 1 (row stride W; it needs n
//      floats of scratch for the weights). Then the arithmetic is the uncached
//      model's, and the answer the same bits (the tests check it).
//
// Hints: lesson 06's exercise 06a (solution/attention_with_cache.cpp there) is
// the same step with one key/value head per query head; common/attention_inputs.cpp
// shows which key/value head each query head reads in the uncached model.
// Tests: ctest --preset yours -L '^yours_10a$' (tests/exercises/exercise_10a_test.cpp).

#include "10_cache_size/exercise/grouped_attention.hpp"

#include "errors.hpp"

namespace tang::mine {

void grouped_attention_with_cache(float* out, const float* proj, float* cache, std::size_t start,
                                  std::size_t T, std::size_t C, std::size_t NH, std::size_t KVH) {
  (void)out, (void)proj, (void)cache, (void)start, (void)T, (void)C, (void)NH, (void)KVH;
  throw NotImplemented(
      "not implemented yet: see exercise 10a "
      "(lessons/10_cache_size/exercise/grouped_attention.cpp)");
}

}  // namespace tang::mine
