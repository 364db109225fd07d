// EXERCISE 11b: the longest cached opening of a request (see cached_prefix.hpp).
//
// std::vector<BlockId> cached_prefix(index, tokens, block_size, max_blocks)
//   tokens  (n) the request's characters: n / block_size full blocks, then
//           n % block_size left over
//   index   BlockHash -> BlockId (block_table.hpp's PrefixIndex)
//   Walk the request's full blocks in order. Block i is the tokens
//   tokens[i*block_size .. (i+1)*block_size-1]; its hash is
//     block_hash(hash of block i-1, those tokens)      (block 0: parent kNoParent)
//   Look each hash up in `index` (hash -> the pool's block holding it). Return
//   the blocks found, in order, stopping at the first hash that is missing,
//   after max_blocks blocks, or when fewer than block_size tokens are left (a
//   part-filled block is never shared this way).
//
// Example, block_size 2, tokens 春 眠 不 觉 晓: blocks [春眠] [不觉] (晓 is left over).
// If the index has block_hash(kNoParent, 春眠) -> 7 and block_hash(that, 不觉) -> 3,
// the answer is {7, 3}; with max_blocks 1 it is {7}.
//
// Tests: ctest --preset yours -L '^yours_11b$' (tests/exercises/exercise_11b_test.cpp).
#include "11_server/exercise/cached_prefix.hpp"

#include <span>
#include <vector>

#include "11_server/block_table.hpp"
#include "errors.hpp"

namespace tang::mine {

std::vector<BlockId> cached_prefix(const PrefixIndex& index, std::span<const TokenId> tokens,
                                   std::size_t block_size, std::size_t max_blocks) {
  (void)index, (void)tokens, (void)block_size, (void)max_blocks;
  throw NotImplemented(
      "not implemented yet: see exercise 11b (lessons/11_server/exercise/cached_prefix.cpp)");
}

}  // namespace tang::mine
