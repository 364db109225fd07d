// top_k_top_p.hpp: cut off the long tail before drawing.
//
// At a high temperature thousands of unlikely characters together take a
// large share of the probability. Two cures:
//   top-k  keep the k highest logits, set the rest to -infinity
//   top-p  ("nucleus") keep the smallest set of most likely characters whose
//          probabilities add up to at least p; zero the rest and renormalise
// The full sampling step, in this order:
//   [constraint masks, lesson 05] -> temperature -> top-k -> softmax -> top-p -> one coin
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rng.hpp"
#include "tokenizer.hpp"

namespace tang {

// The k-th largest of `values` (1 <= k <= size) without sorting them: for a
// small k one pass with a k-element heap, otherwise a partial selection
// (nth_element); both O(n) on average. `scratch` is reused between calls.
float kth_largest(std::span<const float> values, std::size_t k, std::vector<float>& scratch);

// Keeps every logit >= the k-th largest (ties at the border stay, as in the
// seed's masked_fill). k = 0 or k >= size keeps everything.
void top_k_filter(std::span<float> logits, std::size_t k, std::vector<float>& scratch);

// One character of the nucleus search packed in 64 bits, so that sorting
// compares plain integers instead of looking probabilities up: the bits of its
// probability on top (for p >= 0 they order like the floats), below them the
// id inverted, so that of two equal probabilities the smaller id sorts first.
using NucleusKey = std::uint64_t;

// Boundary rule: sort by probability (descending; equal probabilities by id),
// add them up, and keep characters up to and INCLUDING the first one at which
// the running total reaches p (total >= p). p = 1 keeps everything.
// `probabilities` must sum to 1; the result is renormalised to sum to 1.
// `keys` is scratch space (no allocation once it has grown).
void top_p_filter(std::span<float> probabilities, float p, std::vector<NucleusKey>& keys);

// The same result, faster: characters with probability < (1 - p) / (n - 1)
// are not needed for the nucleus (llama2.c's trick), and instead of sorting
// the rest, a binary search on the probability threshold (one vectorised pass
// per guess) narrows the nucleus's edge down to a few dozen characters, and
// only those are sorted; when the cut-off leaves too little, it falls back to
// top_p_filter.
void top_p_filter_with_cutoff(std::span<float> probabilities, float p,
                              std::vector<NucleusKey>& keys);

struct SamplingSettings {
  float temperature = 1.0f;  // 0: greedy
  std::size_t top_k = 0;     // 0: off
  float top_p = 1.0f;        // 1: off
};

// Reusable buffers, so that sampling allocates nothing once they have grown.
struct SamplerScratch {
  std::vector<float> values;
  std::vector<NucleusKey> keys;
};

// temperature -> top-k -> softmax -> top-p -> one coin, overwriting `logits`.
TokenId sample_next(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                    SamplerScratch& scratch);

}  // namespace tang
