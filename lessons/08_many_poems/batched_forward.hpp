// batched_forward.hpp: one decoding step for B poems at once.
//
// Lesson 06's cached step feeds one character of one poem: every weight
// matrix is read to multiply ONE vector (a gemv), and reading the weights is
// most of the time. With B poems in flight, the step feeds each poem's last
// character, B rows, through the same matrices: one matrix-matrix product per
// weight matrix (a gemm), the weights read once for all B. Only attention is
// per poem, each over its own KV cache and its own length (exercise 08b).
//
//   forward_batch(model, weights, tokens, caches, scratch)
//
//   tokens  (B) the new character of each poem, poem b at position caches[b]->length
//   caches  (B) each poem's KV cache (lesson 06); each grows by one position
//
// Row b of the logits is, bit for bit, what lesson 06's forward_with_cache gives
// for poem b alone: the rows never mix (the matrix products compute each row
// as ops::matmul_forward does, LayerNorm and GELU work row by row).
#pragma once

#include <span>

#include "06_kvcache/kv_cache.hpp"
#include "08_many_poems/stored_weights.hpp"
#include "gpt.hpp"

namespace tang {

// The activations of one batched step, for up to max_batch poems.
struct BatchScratch {
  BatchScratch(const GPTConfig& config, std::size_t max_batch);
  Activations acts;  // rows 0 .. B-1 used
  Tensor<2> logits;  // (max_batch, V)
  std::size_t max_batch;
};

// Returns the logits (B, V). Throws std::invalid_argument for B = 0, more than
// max_batch poems, a poem whose cache is full, or a token out of range.
View<2> forward_batch(const GPT& model, const StoredWeights& weights,
                      std::span<const TokenId> tokens, std::span<KVCache* const> caches,
                      BatchScratch& scratch);

}  // namespace tang
