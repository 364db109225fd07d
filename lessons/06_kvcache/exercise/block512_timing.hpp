// exercise/block512_timing.hpp: EXERCISE 06b: a model with a context of 512
// characters, 400 characters written with and without the KV cache, timed.
//
// Lesson 06 runs it at the end of its section: the reference solution
// (solution/block512_timing.cpp) unless started with --yours 06b; then YOUR file
// exercise/block512_timing.cpp, whose comment says exactly what it must do.
// Check yours with
//   cmake --build --preset release --target exercise_06b_test
//   ctest --preset yours -L '^yours_06b$'
//   build/release/lessons/06_kvcache/lesson_06_kvcache --yours 06b
#pragma once

#include <cstdint>
#include <string>

#include "config.hpp"

namespace tang {

struct CacheRatio {
  GPTConfig config;                // the model that was timed
  double without_cache_ms = 0.0;   // writing n characters, recomputing every step
  double with_cache_ms = 0.0;      // the same n characters with the KV cache
  double ratio = 0.0;              // without_cache_ms / with_cache_ms
  std::string text_without_cache;  // the n characters written (UTF-8, newlines included)
  std::string text_with_cache;     // must equal text_without_cache
};

}  // namespace tang

namespace tang::mine {

// Writes n_chars characters with a randomly initialised block-512 model, both
// ways, from the same seed.
CacheRatio time_block512(std::size_t n_chars, std::uint64_t seed);

}  // namespace tang::mine

// The reference solution's (solution/block512_timing.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::time_block512) time_block512;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 06b yours, whose
// texts are then checked against the reference's (block512_timing_switch.cpp).
namespace tang {
decltype(mine::time_block512) time_block512;
}  // namespace tang
