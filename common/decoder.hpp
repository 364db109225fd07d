// decoder.hpp: "what comes next?" for a growing text, with or without the KV cache.
//
// Generation calls next_logits(context) after every new character. Without the
// cache, each call runs the whole context through the model again (start = 0).
// With it, only the characters the cache has not seen yet go through forward().
//
// The model has learned positions 0 .. block_size-1 only, so a longer context
// is cropped to its last block_size characters (as nanoGPT does). Cropping
// shifts every position by one, which invalidates the cached keys/values:
// past the context, the cached decoder rebuilds its cache from the cropped
// window each step, and so gives exactly what the uncached decoder gives.
#pragma once

#include <span>
#include <vector>

#include "gpt.hpp"

namespace tang {

class Decoder {
 public:
  Decoder(const GPT& model, bool use_cache);

  // Logits (V) for the character after `context` (which must not be empty).
  // The view stays valid until the next call.
  View<2> next_logits(std::span<const TokenId> context);

  bool uses_cache() const { return use_cache_; }
  std::size_t vocab_size() const { return model_.config().vocab_size; }
  const KVCache& cache() const { return cache_; }
  void reset() { cache_.reset(), seen_.clear(); }

 private:
  const GPT& model_;
  bool use_cache_;
  KVCache cache_;
  ForwardState state_;
  std::vector<TokenId> seen_;  // the window the cache holds, to detect a changed context
};

}  // namespace tang
