// EXERCISE 06b: how much does the KV cache save with a context of 512?
//
// It runs on top of exercise 02 (every character is drawn with your
// sample_from) and exercise 06a (the cache itself): do those first.
//
// CacheRatio time_block512(n_chars, seed)   (CacheRatio: see the header)
//
// Behaviour, exactly:
//   1. n_chars must be in 1 .. 511 (the text after the opening newline must
//      fit in the context, or the cache would have to be rebuilt);
//      otherwise throw std::invalid_argument.
//   2. Build a GPT (common/gpt.hpp) with block_size 512, 4 layers, 4 heads,
//      128 dims, and a small vocabulary that contains "\n", e.g. the 11
//      characters  "\n" 春 风 花 月 夜 山 水 人 ， 。  (Tokenizer takes them as
//      a std::vector<std::string>; "\n" first). No training: random weights
//      are enough to time it: initialise_parameters(config, buffer, rng) with
//      an Rng rng(seed) (common/parameters.hpp, common/rng.hpp). buffer (P),
//      P = parameter_count(config): every parameter in one flat float array,
//      which the GPT takes as a Tensor<1> of P floats (common/tensor.hpp).
//   3. Write n_chars characters after a newline without the cache (Recompute,
//      common/generate.hpp), then the same with it (CachedPredictor,
//      kv_cache.hpp), sampling each character at temperature 1 (SamplingSettings,
//      common/sampling.hpp) with a fresh Rng(seed) each time; do not stop at a
//      newline. Time each with std::chrono::steady_clock.
//   4. Fill in every field: config, the two times in milliseconds (> 0;
//      without_cache_ms, with_cache_ms), ratio = without / with, and both texts
//      (text_without_cache, text_with_cache: UTF-8, n_chars characters each;
//      they must be identical, because the cache only skips repeated work).
// Hints: lesson 06's cache_timing.hpp writes and times n characters;
// common/generate.hpp has the generation loop.
// Tests: ctest --preset yours -L '^yours_06b$' (tests/exercises/exercise_06b_test.cpp).
// The tests never check how fast it is; lesson_06_kvcache prints the ratio.

#include "06_kvcache/exercise/block512_timing.hpp"

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "06_kvcache/cache_timing.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "gpt.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "sampling.hpp"
#include "tensor.hpp"
#include "tokenizer.hpp"

namespace tang::mine {

CacheRatio time_block512(std::size_t n_chars, std::uint64_t seed) {
  (void)n_chars, (void)seed;
  throw NotImplemented(
      "not implemented yet: see exercise 06b (lessons/06_kvcache/exercise/block512_timing.cpp)");
}

}  // namespace tang::mine
