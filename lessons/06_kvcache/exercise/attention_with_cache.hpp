// exercise/attention_with_cache.hpp: EXERCISE 06a, the KV cache's two new steps
// inside the model: append the new keys and values, and give the new
// characters their absolute positions.
//
// Lesson 06's cached forward (kv_cache.hpp) calls both functions in every
// layer of every step. It runs the reference solution
// (solution/attention_with_cache.cpp) unless started with --yours 06a; then YOUR
// file exercise/attention_with_cache.cpp, whose comment says exactly what they
// must do. Check yours with
//   cmake --build --preset release --target exercise_06a_test
//   ctest --preset yours -L '^yours_06a$'
//   build/release/lessons/06_kvcache/lesson_06_kvcache --yours 06a   (section 6: IDENTICAL?)
//
// Buffers are row-major float arrays, as in common/ops.hpp:
//   qkv      (T, 3C)     row t: q | k | v of the new position start + t
//   k_cache  (T_max, C)  row j: the key of position j
//   v_cache  (T_max, C)  row j: the value of position j
//   out      (T, C)      row t: the heads' outputs side by side
#pragma once

#include <cstddef>

#include "tokenizer.hpp"

namespace tang::mine {

// Causal self-attention of T new positions (start .. start+T-1) over every
// position so far, appending the new keys and values to the cache first.
void attention_with_cache(float* out, const float* qkv, float* k_cache, float* v_cache,
                          std::size_t start, std::size_t T, std::size_t C, std::size_t NH);

// out (T, C) = wte[tokens[t]] + wpe[start + t]: the embedding of the T new
// characters, at their absolute positions.
void embed_with_offset(float* out, const TokenId* tokens, std::size_t T, std::size_t start,
                       const float* wte, const float* wpe, std::size_t C);

}  // namespace tang::mine

// The reference solution's (solution/attention_with_cache.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::attention_with_cache) attention_with_cache;
decltype(mine::embed_with_offset) embed_with_offset;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 06a yours, checked
// against it at every call (attention_with_cache_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::attention_with_cache) attention_with_cache;
decltype(mine::embed_with_offset) embed_with_offset;
}  // namespace tang
