// prefix_reuse.hpp: what a new text takes from the pool before it computes.
//
// A request whose opening another text already computed need not compute it
// again. Its full blocks are found by their hash (exercise 11b: the pool's
// cached blocks, held by no one, or blocks a running text holds); the rows of
// the part-filled block after them are copied from a running text whose cache
// begins the same way (copy on write: the copy is the new text's own block).
// Never the window's last position: its logits are what the next character is
// drawn from, so the text computes at least that one.
#pragma once

#include <span>

#include "11_server/block_pool.hpp"
#include "11_server/paged_forward.hpp"

namespace tang {

// `text` (empty) takes the cached full blocks of `window`'s opening.
void take_cached_opening(PagedText& text, std::span<const TokenId> window, BlockPool& pool);

// `text` (holding only full blocks of `window`) copies what it can of the block
// after them from the text of `others` that holds the most of it. Returns
// whether it copied (false: no match, or no free block to copy into).
bool copy_part_filled_block(PagedText& text, std::span<const TokenId> window,
                            std::span<const PagedText* const> others, BlockPool& pool);

// Whether two windows begin with the same full block (of `block_size` positions).
bool same_first_block(std::span<const TokenId> a, std::span<const TokenId> b,
                      std::size_t block_size);

// Both, as the engine does for a new text; returns whether a block was copied.
bool reuse_opening(PagedText& text, std::span<const TokenId> window,
                   std::span<const PagedText* const> others, BlockPool& pool);

}  // namespace tang
