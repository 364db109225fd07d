// knockout.hpp: what a head is for, tested by taking it away.
//
// A head's output is C / NH numbers of the attention output (heads side by
// side), which attn_proj (C, C) turns back into the residual stream. Zeroing
// the columns of attn_proj that read head h zeroes head h's contribution
// exactly, and nothing else: the other heads, the MLP and every other layer are
// untouched. The knocked-out model is then measured as any other:
//
//   held-out loss   mean nats per character of held-out poems (each read from
//                   its own newline, all positions scored)
//   in form         poems written at the lesson's settings that are regular
//                   verse (lesson 03's is_regular_verse)
//   rhyming         ... in form, whose even lines rhyme in one group (lesson
//                   07's check_verse)
//   copied lines    lines of 5 or more characters found whole in a training poem
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "07_verse/verse_tables.hpp"
#include "gpt.hpp"
#include "sampling.hpp"

namespace tang {

// A copy of `model` with head `head` of layer `layer` (0-based) knocked out.
GPT without_head(const GPT& model, std::size_t layer, std::size_t head);

struct ModelScore {
  double loss = 0.0;  // held-out, nats per character
  std::size_t poems = 0, in_form = 0, rhyming = 0, lines = 0, copied = 0;
};

// What the knockouts are measured on, the same for every model.
struct KnockoutBench {
  std::vector<std::vector<TokenId>> heldout;  // "\n" poem "\n" token ids
  std::vector<std::uint64_t> seeds;           // one poem each
  SamplingSettings settings;
  std::size_t max_chars = 0;
  const VerseTables* tables = nullptr;
  const std::unordered_set<std::string>* training_lines = nullptr;
};

ModelScore score_model(const GPT& model, const KnockoutBench& bench);

}  // namespace tang
