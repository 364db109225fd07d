// exercise/cached_prefix.hpp: EXERCISE 11b, the longest cached opening of a request.
//
// Every full block of the pool that a text has written stays findable by its
// hash (block_table.hpp): block i of a text hashes its block_size tokens
// together with the hash of block i - 1 (kNoParent for block 0). A new request
// whose first characters match a cached chain of blocks takes those blocks
// instead of running its opening through the model again: vLLM's automatic
// prefix caching, llama.cpp's cache_prompt.
//
// The lesson's block pool (block_pool.hpp) calls this for every new request.
// It runs the reference solution (solution/cached_prefix.cpp) unless started
// with --yours 11b; then YOUR exercise/cached_prefix.cpp. Check yours with
//   ctest --preset yours -L '^yours_11b$'
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "11_server/block_table.hpp"

namespace tang::mine {

// The blocks holding the longest opening of `tokens` that `index` has, in
// order: walk the full blocks of `tokens` (tokens[i*block_size .. (i+1)*block_size-1]
// for i = 0, 1, ...), chaining the hashes, and stop at the first one the index
// lacks, after `max_blocks` blocks, or where fewer than block_size tokens are left.
std::vector<BlockId> cached_prefix(const PrefixIndex& index, std::span<const TokenId> tokens,
                                   std::size_t block_size, std::size_t max_blocks);

}  // namespace tang::mine

// The reference solution's (solution/cached_prefix.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::cached_prefix) cached_prefix;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 11b yours,
// checked against it at every call (cached_prefix_switch.cpp).
namespace tang {
decltype(mine::cached_prefix) cached_prefix;
}  // namespace tang
