// weight_quality.hpp: what smaller weights cost in quality, measured against fp32.
//
// Both models read the same held-out poems character by character (teacher
// forcing: each step feeds the poem's own next character, whatever the model
// predicted), B poems at a time through lesson 06's cached forward. At every position:
//   loss       -ln p(the poem's next character), in nats (the held-out loss)
//   KL         sum_i p32_i ln(p32_i / p_i): how far the whole distribution moved
//              from fp32's (0 for identical ones), in nats
//   top-1      whether both models rank the same character first
// Each poem is read from its own newline ("\n" poem "\n"), so the loss is not
// the trainer's held-out loss, which joins the held-out poems into one stream
// and cuts it into windows of 128 characters (a window's first characters
// have little or no context there).
#pragma once

#include <vector>

#include "08_many_poems/stored_weights.hpp"
#include "gpt.hpp"

namespace tang {

struct WeightQuality {
  double loss = 0.0;       // mean nats per character, these weights
  double fp32_loss = 0.0;  // the same with fp32
  double kl = 0.0;         // mean KL(fp32 || these), nats per character
  double top1 = 0.0;       // share of positions where both pick the same first
  std::size_t positions = 0;
};

// `poems`: token ids with their newlines, "\n" poem "\n", each at most
// block_size + 1 long. Throws std::invalid_argument for a longer one.
WeightQuality compare_with_fp32(const GPT& model, const StoredWeights& fp32,
                                const StoredWeights& weights,
                                const std::vector<std::vector<TokenId>>& poems, std::size_t batch);

// The first `count` held-out poems of `corpus` (index % 20 == 0, as the
// trainer splits), as "\n" poem "\n" token ids; poems longer than the context
// are left out (none fits a context under 25). Throws BadOption naming --corpus
// and the line when the corpus cannot be read or has a character the model does
// not know.
std::vector<std::vector<TokenId>> heldout_poems(const GPT& model, const std::string& corpus,
                                                std::size_t count);

}  // namespace tang
