// exercise/latent_attention.hpp: EXERCISE 10b, latent attention's cached step in
// its absorbed form: attention runs over the cached latent vectors themselves,
// and no key or value is ever rebuilt.
//
// SmallCache::attend (small_cache.cpp) calls it in every layer of every
// step of a latent model. It runs the reference solution
// (solution/latent_attention.cpp) unless started with --yours 10b; then YOUR
// file exercise/latent_attention.cpp, whose comment says exactly what it must
// do. Check yours with
//   cmake --build --preset release --target exercise_10b_test
//   ctest --preset yours -L '^yours_10b$'
//   build/release/lessons/10_cache_size/lesson_10_cache_size --yours 10b
//
// Buffers are row-major float arrays; HS = C / NH, d_c the latent's width:
//   proj   (T, C + d_c)  row t: q (C) | latent c (d_c) of the new position start + t
//   cache  (T_max, d_c)  row j: the latent of position j
//   kv_up  (2C, d_c)     row r < C makes entry r of every key, row C + r entry r of
//                        every value: k_j = W_UK c_j, v_j = W_UV c_j (W_UK its first
//                        C rows, W_UV the rest)
//   out    (T, C)        row t: the NH heads' outputs side by side
#pragma once

#include <cstddef>

namespace tang::mine {

// Appends the T new latents to the cache, then computes each new position's
// attention over every position so far, head by head, in the latent space.
void latent_attention_with_cache(float* out, const float* proj, float* cache, const float* kv_up,
                                 std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                 std::size_t latent);

}  // namespace tang::mine

// The reference solution's (solution/latent_attention.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::latent_attention_with_cache) latent_attention_with_cache;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 10b yours,
// checked against it at every call (latent_attention_switch.cpp).
namespace tang {
decltype(mine::latent_attention_with_cache) latent_attention_with_cache;
}  // namespace tang
