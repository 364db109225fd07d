// SOLUTION to exercise 11b (the learner's file is exercise/cached_prefix.cpp,
// whose comment specifies the behaviour).
#include "11_server/exercise/cached_prefix.hpp"

namespace tang::reference {

std::vector<BlockId> cached_prefix(const PrefixIndex& index, std::span<const TokenId> tokens,
                                   std::size_t block_size, std::size_t max_blocks) {
  std::vector<BlockId> blocks;
  BlockHash parent = kNoParent;
  while (blocks.size() < max_blocks && (blocks.size() + 1) * block_size <= tokens.size()) {
    const BlockHash hash =
        block_hash(parent, tokens.subspan(blocks.size() * block_size, block_size));
    const auto found = index.find(hash);
    if (found == index.end()) break;
    blocks.push_back(found->second);
    parent = hash;
  }
  return blocks;
}

}  // namespace tang::reference
