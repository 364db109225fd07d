// EXERCISE 10b: latent attention over a cache of latents, absorbed.
//
// A latent model caches one vector c of d_c floats per position and layer
// (lesson 10 trains d_c = 32: an eighth of lesson 06's 2C = 256). Its keys and
// values are up-projections, k_j = W_UK c_j and v_j = W_UV c_j; head h uses rows
// h HS .. h HS+HS-1 of each, W_UK_h and W_UV_h (HS, d_c). Rebuilding them for
// every cached position at every step would cost n x 2C x d_c multiply-adds.
// Instead move the matrices to the other side of each product:
//   score_j = q_h . (W_UK_h c_j) = (W_UK_h^T q_h) . c_j   -> absorb W_UK into the query
//   out_h   = sum_j p_j W_UV_h c_j = W_UV_h (sum_j p_j c_j) -> apply W_UV once, at the end
// Shapes (row-major floats; HS = C / NH, d_c = latent, T_max = the model's block_size):
//   proj   (T, C + d_c)  row t (stride C + d_c): q (C) | latent c (d_c) of the new
//                        position start+t
//   cache  (T_max, d_c)  row j (stride d_c): the latent c_j of position j
//   kv_up  (2C, d_c)     row r (stride d_c): rows 0 .. C-1 are W_UK (entry r of
//                        every key), rows C .. 2C-1 W_UV (entry r - C of every value)
//   out    (T, C)        row t (stride C): the NH heads' outputs side by side
//
// void latent_attention_with_cache(out, proj, cache, kv_up, start, T, C, NH, latent)
//   1. Append: for t = 0 .. T-1 copy columns C .. C+d_c-1 of row t of proj into
//      row start+t of cache. Do not touch any row past start+T-1.
//   2. For new row t (position start+t, n = start+t+1 positions to see) and each
//      head h, with q_h = columns h HS .. h HS+HS-1 of row t of proj:
//        a. the absorbed query  a (d_c) = W_UK_h^T q_h (W_UK_h: rows h HS ..
//           h HS+HS-1 of kv_up, each d_c long)
//        b. scores s_j = (a . c_j) / sqrt(HS) for j = 0 .. n-1 (HS, not d_c: the
//           model was trained on q . k / sqrt(HS)), and p = softmax(s): subtract
//           the largest score before exp, as common/ops.cpp's attend does
//        c. the weighted latent  m (d_c) = sum_j p_j c_j
//        d. head h's output, columns h HS .. h HS+HS-1 of row t of out:
//           W_UV_h m (W_UV_h: rows C + h HS .. C + h HS+HS-1 of kv_up)
//   The additions run in another order than the uncached model's, so the
//   answer differs from it by rounding only: the tests accept 1e-4.
//
// Hints: common/ops.hpp's ops::dot adds n products; a, s, p and m are scratch
// (std::vector<float>); lesson 10's page shows the step beside the rebuilt form.
// Tests: ctest --preset yours -L '^yours_10b$' (tests/exercises/exercise_10b_test.cpp).

#include "10_cache_size/exercise/latent_attention.hpp"

#include <cmath>
#include <vector>

#include "errors.hpp"
#include "ops.hpp"

namespace tang::mine {

void latent_attention_with_cache(float* out, const float* proj, float* cache, const float* kv_up,
                                 std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                 std::size_t latent) {
  (void)out, (void)proj, (void)cache, (void)kv_up, (void)start, (void)T, (void)C, (void)NH,
      (void)latent;
  throw NotImplemented(
      "not implemented yet: see exercise 10b "
      "(lessons/10_cache_size/exercise/latent_attention.cpp)");
}

}  // namespace tang::mine
