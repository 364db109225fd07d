// long_context.hpp: where the cache's size decides the step's time.
//
// Our model's cache is small beside its weights: 512 KB per text at a full
// context of 128, against 6.6 MB of weights. Large models read long contexts:
// at 1,024 positions a text of GPT-2 small's shape (12 layers, 12 heads, 768
// dims) caches 72 MB with multi-head attention, and a batch of 8 texts reads
// more cache than weights each step. The variants of such a model, with random
// weights (a step's time does not depend on their values), are timed here next
// to the cost model's prediction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpt.hpp"

namespace tang {

// GPT-2 small's shape with a context of `context` positions and our vocabulary,
// sharing keys and values as `ours` does in proportion: the same share of
// key/value heads (multi-query keeps one), a latent of the same share of the width.
GPTConfig long_context_shape(const GPTConfig& ours, std::size_t context);

// The median milliseconds of `steps` cached steps (lesson 10's forward, no draw)
// of B texts whose caches hold `cached` positions each, after one not timed.
double time_small_cache_step_ms(const GPT& model, std::size_t B, std::size_t cached,
                                std::size_t steps);

}  // namespace tang
