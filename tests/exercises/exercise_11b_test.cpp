// exercise_11b_test: EXERCISE 11b, the longest cached opening of a request
// (lessons/11_server/exercise/cached_prefix.cpp).
//
//   ctest --preset yours -L '^yours_11b$'    your code
//   ctest --preset release -L exercise_11b    the reference solution
//
// An index of full blocks is built by hand with block_hash (block_table.hpp);
// your lookup must return the cached blocks of the request's opening, in order,
// and stop where the spec says.

#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "11_server/exercise/cached_prefix.hpp"

namespace {

using tang::BlockId;
using tang::cached_prefix;
using tang::TokenId;

// Registers the full blocks of `tokens` (block_size each) as pool blocks `ids`.
void add_chain(tang::PrefixIndex& index, const std::vector<TokenId>& tokens, std::size_t block_size,
               const std::vector<BlockId>& ids) {
  tang::BlockHash parent = tang::kNoParent;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    parent = tang::block_hash(parent, std::span(tokens).subspan(i * block_size, block_size));
    index[parent] = ids[i];
  }
}

TEST(Exercise11b, FindsTheWholeChainInOrder) {
  tang::PrefixIndex index;
  add_chain(index, {1, 2, 3, 4, 5, 6}, 2, {7, 3, 9});
  const std::vector<TokenId> request = {1, 2, 3, 4, 5, 6, 8};
  EXPECT_EQ(cached_prefix(index, request, 2, 10), (std::vector<BlockId>{7, 3, 9}))
      << "blocks [1 2] [3 4] [5 6] are cached as 7, 3, 9; 8 is a part block. Block i's hash is "
         "block_hash(the hash of block i - 1, its tokens): each lookup uses the last hash";
}

TEST(Exercise11b, StopsAtTheFirstMiss) {
  tang::PrefixIndex index;
  add_chain(index, {1, 2, 3, 4, 5, 6}, 2, {7, 3, 9});
  const std::vector<TokenId> request = {1, 2, 3, 9, 5, 6};
  EXPECT_EQ(cached_prefix(index, request, 2, 10), (std::vector<BlockId>{7}))
      << "[3 9] is not cached: the opening ends after [1 2]";
}

TEST(Exercise11b, ABlockIsItsTokensAfterItsParent) {
  tang::PrefixIndex index;
  add_chain(index, {1, 2, 3, 4}, 2, {7, 3});
  const std::vector<TokenId> request = {3, 4, 1, 2};
  EXPECT_TRUE(cached_prefix(index, request, 2, 10).empty())
      << "[3 4] is cached after [1 2], not as a first block: chain the hashes from kNoParent";
}

TEST(Exercise11b, StopsAtMaxBlocks) {
  tang::PrefixIndex index;
  add_chain(index, {1, 2, 3, 4, 5, 6}, 2, {7, 3, 9});
  const std::vector<TokenId> request = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(cached_prefix(index, request, 2, 2), (std::vector<BlockId>{7, 3}))
      << "max_blocks 2: at most two blocks, even when more are cached";
  EXPECT_TRUE(cached_prefix(index, request, 2, 0).empty()) << "max_blocks 0: none";
}

TEST(Exercise11b, NeverAPartBlockAndNothingForAShortRequest) {
  tang::PrefixIndex index;
  add_chain(index, {1, 2, 3, 4}, 4, {5});
  EXPECT_TRUE(cached_prefix(index, std::vector<TokenId>{1, 2, 3}, 4, 10).empty())
      << "3 tokens do not make a block of 4";
  EXPECT_TRUE(cached_prefix(tang::PrefixIndex{}, std::vector<TokenId>{}, 4, 10).empty());
}

// The request is the first 5 tokens of a longer buffer (as when the server looks up
// part of a text): token 6 lies just past its end, and [5 6] is cached as block 9.
TEST(Exercise11b, ReadsNothingPastTheEndOfTheRequest) {
  tang::PrefixIndex index;
  add_chain(index, {1, 2, 3, 4, 5, 6}, 2, {7, 3, 9});
  const std::vector<TokenId> buffer = {1, 2, 3, 4, 5, 6, 8};
  const std::span<const TokenId> request = std::span(buffer).first(5);  // 1 2 3 4 5
  EXPECT_EQ(cached_prefix(index, request, 2, 10), (std::vector<BlockId>{7, 3}))
      << "the request is 1 2 3 4 5: blocks [1 2] [3 4], then 5 alone, a part block. Block 9 "
         "holds [5 6]: an answer ending in 9 hashed block_size tokens from the 5 on, reading "
         "the 6 that lies past the end of the request's span. Stop where fewer than "
         "block_size tokens are left: (i + 1) * block_size <= tokens.size()";
}

}  // namespace
