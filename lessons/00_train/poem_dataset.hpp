// poem_dataset.hpp: the corpus as training and held-out token streams.
//
// data/tang_poems.txt has one poem per line. Poem i (counting from 0) is held
// out when i % 20 == 0; the rest train. Each stream is its poems joined by
// newlines, every poem followed by "\n", so the model learns where a poem ends.
#pragma once

#include <string>
#include <vector>

#include "rng.hpp"
#include "tokenizer.hpp"

namespace tang {

struct PoemDataset {
  Tokenizer tokenizer;           // from the whole corpus
  std::vector<TokenId> train;    // 19 of every 20 poems
  std::vector<TokenId> heldout;  // poems 0, 20, 40, ...
  std::size_t train_poems = 0, heldout_poems = 0;
};

// Reads and checks the corpus; throws UserError with the line number of the
// first invalid UTF-8 line, or when the corpus is empty.
PoemDataset load_poem_dataset(const std::string& path);

// Throws UserError naming the sizes when `stream` is shorter than one
// training window of T+1 tokens.
void require_one_window(const std::vector<TokenId>& stream, std::size_t T);

// B random windows of T+1 tokens from `stream`: inputs are the first T, targets
// the last T of each window. Filled in place, (B, T) each.
void sample_batch(const std::vector<TokenId>& stream, std::size_t B, std::size_t T, Rng& rng,
                  std::vector<TokenId>& inputs, std::vector<TokenId>& targets);

}  // namespace tang
