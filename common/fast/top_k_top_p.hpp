// top_k_top_p.hpp (under the hood): the tuned versions of lesson 03's filters.
//
// Lesson 03 runs the plain ones: top-k by sorting a copy of the logits
// (lessons/03_topk_topp/sampler.cpp) and top-p by sorting and a running sum
// (exercise 03, lessons/03_topk_topp/solution/top_p.cpp). These give exactly
// the same results, faster (tests/fast_test.cpp checks it; docs/under-the-hood.md
// has the before/after):
//   top-k  one pass with a k-element heap instead of a sort
//   top-p  a cut-off that drops what cannot be in the nucleus, then a binary
//          search on the probability threshold instead of a sort
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rng.hpp"
#include "sampling.hpp"
#include "tokenizer.hpp"

namespace tang::fast {

// The k-th largest of `values` (1 <= k <= size) without sorting them: for a
// small k one pass with a k-element heap, otherwise a partial selection
// (nth_element); both O(n) on average. `scratch` is reused between calls.
float kth_largest(std::span<const float> values, std::size_t k, std::vector<float>& scratch);

// Keeps every logit >= the k-th largest (ties at the border stay); the rest
// become -infinity. k = 0 or k >= size keeps everything.
void top_k_filter(std::span<float> logits, std::size_t k, std::vector<float>& scratch);

// One character of the nucleus search packed in 64 bits, so that sorting
// compares plain integers instead of looking probabilities up: the bits of its
// probability on top (for p >= 0 they order like the floats), below them the
// id inverted, so that of two equal probabilities the smaller id sorts first.
using NucleusKey = std::uint64_t;

// Exercise 03's rule, bit for bit: rank by probability (equal ones by id),
// keep up to and including the first character at which the running total
// (a double) reaches p, zero the rest, divide the kept ones by that total.
// Characters with probability < (1 - p) / (n - 1) cannot be in the nucleus
// (llama2.c's trick); among the rest, a binary search on the probability
// threshold (one vectorised pass per guess) narrows the nucleus's edge down to
// a few dozen characters, and only those are sorted. When the cut-off leaves
// too little, everything is sorted. `keys` is scratch space.
void top_p_filter(std::span<float> probabilities, float p, std::vector<NucleusKey>& keys);

// Reusable buffers, so that sampling allocates nothing once they have grown.
struct SamplerScratch {
  std::vector<float> values;
  std::vector<NucleusKey> keys;
  std::vector<TokenId> kept_ids;  // a small top-k's characters, in order of id
  std::vector<float> kept;        // and their logits, then probabilities
};

// A top-k up to this many: the softmax and the walk take only the kept characters.
inline constexpr std::size_t kFewKept = 64;

// Whether sample_next with `s` over `n` logits takes its two-pass way (a small
// top-k at T > 0), which leaves the logits at the temperature behind.
inline bool leaves_scaled_logits(const SamplingSettings& s, std::size_t n) {
  return s.temperature != 0.0f && s.top_k > 0 && s.top_k < n && s.top_k <= kFewKept;
}

// Lesson 03's sampling step with the tuned pieces: temperature -> top-k ->
// softmax -> top-p -> one coin, overwriting `logits`. The same character as the
// lesson's sample_next, up to the last bit of the vectorised softmax. With a
// top-k up to kFewKept and T > 0 (leaves_scaled_logits) the same character exactly, in two passes
// over the vocabulary: the softmax, top-p and the coin's walk take only the
// kept characters, and `logits` is left holding every logit at the
// temperature, (z - max) / T, before any filter: what lesson 01's softmax of
// the step's distribution starts from (a caller may reuse it). Otherwise what
// is left there is not a distribution.
TokenId sample_next(std::span<float> logits, const SamplingSettings& settings, Rng& rng,
                    SamplerScratch& scratch);

}  // namespace tang::fast
