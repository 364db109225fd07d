// exercise/grouped_attention.hpp: EXERCISE 10a, the cached attention step when
// several query heads share one key/value head (grouped-query attention;
// multi-query is one key/value head for all, multi-head one for each).
//
// SmallCache::attend (small_cache.cpp) calls it in every layer of every step
// of a multi-head, grouped or multi-query model (multi-head is KVH = NH). It
// runs the reference solution (solution/grouped_attention.cpp) unless started
// with --yours 10a; then YOUR file exercise/grouped_attention.cpp, whose
// comment says exactly what it must do. Check yours with
//   cmake --build --preset release --target exercise_10a_test
//   ctest --preset yours -L '^yours_10a$'
//   build/release/lessons/10_cache_size/lesson_10_cache_size --yours 10a
//
// Buffers are row-major float arrays; HS = C / NH, W = 2 KVH HS, T_max = capacity:
//   proj   (T, C + W)              row t: q (C) | keys (KVH, HS) | values (KVH, HS) of
//                                  the new position start + t
//   cache  (2, KVH, T_max, HS)     one layer's cache, head by head: [0][g] holds key
//                                  head g of every position (row j: position j), [1][g]
//                                  value head g; each head's rows lie back to back
//   out    (T, C)                  row t: the NH heads' outputs side by side
#pragma once

#include <cstddef>

namespace tang::mine {

// Appends the T new positions' keys and values to the cache, then lets each
// new position's NH query heads attend over every position so far; query head
// h reads key/value head h / (NH / KVH).
void grouped_attention_with_cache(float* out, const float* proj, float* cache, std::size_t capacity,
                                  std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                  std::size_t KVH);

}  // namespace tang::mine

// The reference solution's (solution/grouped_attention.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::grouped_attention_with_cache) grouped_attention_with_cache;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 10a yours,
// checked against it at every call (grouped_attention_switch.cpp).
namespace tang {
decltype(mine::grouped_attention_with_cache) grouped_attention_with_cache;
}  // namespace tang
