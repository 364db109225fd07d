// block_table.hpp: the names lesson 11's paged cache gives its pieces.
//
// The paged cache cuts every text's cache into blocks of block_size positions
// (16 here) taken from one shared pool. A text's block table lists its blocks
// in order: position p lives in block table[p / block_size], at row
// p % block_size of it. A full block can be found again by its hash: the hash
// of its tokens and of the block before it (a chain, so two blocks with the
// same tokens after different openings differ), as vLLM's prefix cache does.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>

#include "tokenizer.hpp"

namespace tang {

using BlockId = std::uint32_t;      // a block's index in the pool
using BlockHash = std::uint64_t;    // what a full block holds, and what came before it
constexpr BlockHash kNoParent = 0;  // the "block before" the first block

// The hash of a full block of `tokens` after the block whose hash is `parent`.
BlockHash block_hash(BlockHash parent, std::span<const TokenId> tokens);

// Every full block the pool can hand out again, by its hash.
using PrefixIndex = std::unordered_map<BlockHash, BlockId>;

}  // namespace tang
