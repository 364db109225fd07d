#include "config.hpp"

#include "errors.hpp"

namespace tang {

void GPTConfig::validate() const {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw UserError("invalid model config: " + what);
  };
  require(vocab_size >= 2, "vocabulary size must be at least 2");
  require(block_size >= 1 && block_size <= 65536, "block size must be in [1, 65536]");
  require(n_layer >= 1 && n_layer <= 256, "layer count must be in [1, 256]");
  require(n_head >= 1 && n_head <= 256, "head count must be in [1, 256]");
  require(n_embd >= 1 && n_embd <= 65536, "embedding width must be in [1, 65536]");
  require(n_embd % n_head == 0, "embedding width " + std::to_string(n_embd) +
                                    " is not divisible by head count " + std::to_string(n_head));
}

std::string GPTConfig::describe() const {
  return std::to_string(n_layer) + " layers, " + std::to_string(n_head) + " heads, " +
         std::to_string(n_embd) + " dims, context " + std::to_string(block_size) + ", vocabulary " +
         std::to_string(vocab_size);
}

}  // namespace tang
