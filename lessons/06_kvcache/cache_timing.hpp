// cache_timing.hpp: the same text with and without the KV cache, timed.
#pragma once

#include <vector>

#include "gpt.hpp"
#include "sampling.hpp"

namespace tang {

struct TimedText {
  std::vector<TokenId> ids;  // the characters written (newline included, no stop)
  double milliseconds = 0.0;
};

// Writes exactly n characters after a newline, with the cache (CachedPredictor)
// or without (Recompute), sampling with `settings` from Rng(seed).
TimedText write_chars(const GPT& model, bool use_cache, std::size_t n,
                      const SamplingSettings& settings, std::uint64_t seed);

// The median time of `runs` calls of write_chars (the text of the last run).
TimedText median_of(std::size_t runs, const GPT& model, bool use_cache, std::size_t n,
                    const SamplingSettings& settings, std::uint64_t seed);

}  // namespace tang
