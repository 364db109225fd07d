// config.hpp: the shape of a GPT, as five numbers.
#pragma once

#include <cstddef>
#include <string>

namespace tang {

struct GPTConfig {
  std::size_t vocab_size = 0;    // V: characters the model knows (newline included)
  std::size_t block_size = 128;  // T_max: the longest context the model reads
  std::size_t n_layer = 4;       // L: transformer blocks
  std::size_t n_head = 4;        // NH: attention heads per block
  std::size_t n_embd = 128;      // C: width of every position's vector

  std::size_t head_size() const { return n_embd / n_head; }  // HS = C / NH

  // Throws UserError when the numbers cannot describe a model.
  void validate() const;
  std::string describe() const;  // "4 layers, 4 heads, 128 dims, context 128, vocabulary 7129"
};

}  // namespace tang
