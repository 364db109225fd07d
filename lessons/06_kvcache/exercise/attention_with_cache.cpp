// EXERCISE 06a: the KV-cache step inside attention.
//
// Without a cache, every step runs the whole text through the model again.
// With one, a step feeds only the T new characters (T = the prompt's length
// for the first step, the "prefill"; then T = 1), at absolute positions
// start .. start+T-1, where start is how many positions the cache holds.
// Shapes (row-major floats; HS = C / NH, T_max = the model's block_size):
//   qkv      (T, 3C)     row t (stride 3C): q | k | v of the new position start+t
//   k_cache  (T_max, C)  row j (stride C): the key of position j
//   v_cache  (T_max, C)  row j (stride C): the value of position j
//   out      (T, C)      row t (stride C): the NH heads' outputs side by side,
//                        head h in columns h HS .. h HS+HS-1
//
// void attention_with_cache(out, qkv, k_cache, v_cache, start, T, C, NH)
//   1. Append: for t = 0 .. T-1 copy the key of row t of qkv (columns C .. 2C-1)
//      into row start+t of k_cache, and its value (columns 2C .. 3C-1) into row
//      start+t of v_cache. Rows 0 .. start-1 are already there; do not touch
//      any row past start+T-1.
//   2. Attend: new row t is position start+t, and it may look at positions
//      0 .. start+t: the causal mask, shifted by start. Call common/ops.hpp's
//      ops::attend for it, with the query q = row t of qkv (columns 0 .. C-1),
//      the keys and values in the cache (row stride C) and n = start+t+1
//      positions; it writes row t of out. (ops::attend needs NH * n floats of
//      scratch for the attention weights, (NH, n), e.g. a std::vector<float>.)
//   With start = 0 this is ordinary causal attention (ops::attention_forward
//   with B = 1); with the cache it must give exactly what that gives on the
//   whole text, row for row: the same additions in the same order, so the
//   same bits (the tests check it).
//
// void embed_with_offset(out, tokens, T, start, wte, wpe, C)
//   out row t = wte row tokens[t] + wpe row (start + t), for t = 0 .. T-1.
//   Positions start at `start`, not at 0: the new characters sit after the
//   cached ones. (tokens is (T), out (T, C), wte (V, C), wpe (T_max, C): every
//   row C floats.)
//
// Hints: lessons/06_kvcache/kv_cache.hpp shows where these steps sit in the
// model; common/ops.cpp's attention_forward is the same loop without a cache.
// Tests: ctest --preset yours -L '^yours_06a$' (tests/exercises/exercise_06a_test.cpp).

#include "06_kvcache/exercise/attention_with_cache.hpp"

#include <vector>

#include "errors.hpp"
#include "ops.hpp"

namespace tang::mine {

namespace {
const char* const kTodo =
    "not implemented yet: see exercise 06a (lessons/06_kvcache/exercise/attention_with_cache.cpp)";
}

void attention_with_cache(float* out, const float* qkv, float* k_cache, float* v_cache,
                          std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  (void)out, (void)qkv, (void)k_cache, (void)v_cache, (void)start, (void)T, (void)C, (void)NH;
  throw NotImplemented(kTodo);
}

void embed_with_offset(float* out, const TokenId* tokens, std::size_t T, std::size_t start,
                       const float* wte, const float* wpe, std::size_t C) {
  (void)out, (void)tokens, (void)T, (void)start, (void)wte, (void)wpe, (void)C;
  throw NotImplemented(kTodo);
}

}  // namespace tang::mine
