// beam_search.hpp: writing under a constraint, with B poems in flight instead of one.
//
// Masks alone decide one character at a time. Regular verse asks for the last
// character of a rhyming line to be a 平 character of one rhyme group; a line
// that went somewhere no such character fits leaves the model a choice among
// characters it finds unlikely, and the poem goes flat. Beam search keeps the
// `width` best partial poems (by the sum of ln p of their characters, under
// the model at T = 1) and extends each, so a line whose ending works out can
// win over one that looked better two characters earlier.
//
// One step, for every beam:
//   logits -> ln p (log-softmax)          the score of each next character
//   mask = constraint.allowed_next(...)  lesson 05's masks, verse_constraint.hpp
//   candidates: `width` characters drawn from the masked logits with the
//   lesson's sampler (temperature, top-k), or at T = 0 every allowed one
// then beam_step (exercise 07b) keeps the `width` best extensions.
// Width 1 is plain masked sampling: one character drawn, the same coins as
// lesson 05's write_under_masks, the same poem.
//
// Each beam has its own KV cache (lesson 06's KVCache and forward_with_cache);
// a beam that is extended twice is copied. A poem (at most 65 characters with
// its newline) fits the shipped model's context; on a model with a shorter
// one the window slides, as in lesson 06.
#pragma once

#include <iosfwd>
#include <vector>

#include "07_verse/verse_constraint.hpp"
#include "gpt.hpp"
#include "rng.hpp"
#include "sampling.hpp"

namespace tang {

struct BeamSettings {
  std::size_t width = 4;
  SamplingSettings sampling;  // how candidates are drawn; temperature 0: all allowed ones
};

struct WrittenVerse {
  std::vector<TokenId> tokens;       // (length) the poem, ⏎ included
  double score = 0.0;                // sum of log_p
  std::vector<double> log_p;         // (length) ln p of each character, the model at T = 1
  std::vector<double> allowed_mass;  // (length) p of all the characters allowed there
};

// Writes one poem after "\n" under `constraint`. With `trace`, prints the
// beams kept after every step.
WrittenVerse write_verse(const GPT& model, const VerseConstraint& constraint,
                         const BeamSettings& settings, Rng& rng, std::ostream* trace = nullptr);

// The mean ln p of the characters inside the lines (not ，。⏎): what the
// constraint costs, in nats per character, when compared without it.
double mean_log_p_per_character(const WrittenVerse& verse, const VerseVocabulary& vocab);

}  // namespace tang
