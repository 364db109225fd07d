// exercise/block512_timing.hpp: EXERCISE 06b: a model with a context of 512
// characters, 500 characters written with and without the KV cache, timed.
//
// Lesson 06 runs it at the end of its section: the default build compiles the
// reference solution (solution/block512_timing.cpp), the `learner` preset YOUR
// file exercise/block512_timing.cpp, whose comment says exactly what it must
// do. Check yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_06b
//   build/learner/lessons/06_kvcache/lesson_06_kvcache
#pragma once

#include <cstdint>
#include <string>

#include "config.hpp"

namespace tang::mine {

struct CacheRatio {
  GPTConfig config;                // the model that was timed
  double without_cache_ms = 0.0;   // writing n characters, recomputing every step
  double with_cache_ms = 0.0;      // the same n characters with the KV cache
  double ratio = 0.0;              // without_cache_ms / with_cache_ms
  std::string text_without_cache;  // the n characters written (UTF-8, newlines included)
  std::string text_with_cache;     // must equal text_without_cache
};

// Writes n_chars characters with a randomly initialised block-512 model, both
// ways, from the same seed.
CacheRatio time_block512(std::size_t n_chars, std::uint64_t seed);

}  // namespace tang::mine
