// speculative_writer.hpp: lesson 06's cached writing, several characters a forward pass.
//
// Each round the drafter proposes up to k characters; the model runs its pending
// character and the k drafts as k + 1 rows of one cached forward pass, which
// gives its distribution after each of them; accept_drafts keeps the drafts it
// agrees with and draws one more character; and the cache is cut back to the
// characters kept (a KVCache holds its first `length` positions: the rows past
// it are written over by the next round). A round writes 1 to k + 1 characters
// for one forward pass of k + 1 rows, which costs little more than one row when
// reading the weights is what a step pays for. The text follows the model's
// distribution whatever the drafter (accept_drafts.hpp); at temperature 0 it is
// lesson 06's greedy text, character for character (tested).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "05_acrostic/logit_mask.hpp"  // LogitMask
#include "06_kvcache/step_cost.hpp"    // StepWork
#include "12_speculative/drafter.hpp"
#include "gpt.hpp"
#include "sampling.hpp"

namespace tang {

struct SpeculativeCounts {
  std::size_t rounds = 0;         // cached forward passes (verifications)
  std::size_t drafted = 0;        // characters the drafter proposed
  std::size_t accepted = 0;       // of them, kept
  std::size_t written = 0;        // characters written: the kept drafts and one drawn a round
  std::vector<std::size_t> kept;  // drafts kept in each round, in order
  std::vector<StepWork> work;     // what each forward pass pushed through the model (step_cost.hpp)
};

// A form's mask for the character after `context` (lesson 05's LogitMask): for
// lesson 07's regular verse, its constraint's allowed_next of what was written.
using MaskFor = std::function<LogitMask(std::span<const TokenId> context)>;

// Appends to `context` up to max_new characters, as lesson 04's write does (it
// stops after writing `stop_after`, a poem's newline), with up to k drafts a
// round. With `mask_for`, every distribution of the model is masked as lesson
// 03's sampler masks it (the mask first). Returns the characters written.
std::vector<TokenId> write_speculative(const GPT& model, Drafter& drafter,
                                       std::vector<TokenId>& context,
                                       const SamplingSettings& settings, Rng& rng, std::size_t k,
                                       std::size_t max_new, std::optional<TokenId> stop_after,
                                       SpeculativeCounts* counts = nullptr,
                                       const MaskFor& mask_for = {});

}  // namespace tang
