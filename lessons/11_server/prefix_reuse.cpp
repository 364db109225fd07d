#include "11_server/prefix_reuse.hpp"

#include <algorithm>

namespace tang {

void take_cached_opening(PagedText& text, std::span<const TokenId> window, BlockPool& pool) {
  const std::size_t size = pool.block_size();
  for (const BlockId b : pool.take_prefix(window, (window.size() - 1) / size)) {
    const std::span<const TokenId> held = window.subspan(text.table.size() * size, size);
    text.last_hash = block_hash(text.last_hash, held);
    text.table.push_back(b);
    text.tokens.insert(text.tokens.end(), held.begin(), held.end());
    ++text.registered;
  }
}

bool copy_part_filled_block(PagedText& text, std::span<const TokenId> window,
                            std::span<const PagedText* const> others, BlockPool& pool) {
  const std::size_t size = pool.block_size();
  const std::size_t full = text.table.size();
  const std::size_t from = full * size;  // the part-filled block starts here
  const std::size_t most = std::min(size - 1, window.size() - 1 - from);
  const PagedText* best = nullptr;
  std::size_t rows = 0;
  for (const PagedText* other : others) {
    const std::vector<TokenId>& theirs = other->tokens;
    if (other == &text || theirs.size() <= from ||
        !std::equal(window.begin(), window.begin() + static_cast<long>(from), theirs.begin()))
      continue;
    std::size_t same = 0;
    while (same < most && from + same < theirs.size() && theirs[from + same] == window[from + same])
      ++same;
    if (same > rows) {
      best = other;
      rows = same;
    }
  }
  if (best == nullptr) return false;
  const std::optional<BlockId> block = pool.allocate();
  if (!block) return false;  // no room to copy into: computed instead
  pool.copy_rows(best->table[full], *block, rows);
  text.table.push_back(*block);
  text.tokens.insert(text.tokens.end(), window.begin() + static_cast<long>(from),
                     window.begin() + static_cast<long>(from + rows));
  return true;
}

bool reuse_opening(PagedText& text, std::span<const TokenId> window,
                   std::span<const PagedText* const> others, BlockPool& pool) {
  take_cached_opening(text, window, pool);
  return copy_part_filled_block(text, window, others, pool);
}

bool same_first_block(std::span<const TokenId> a, std::span<const TokenId> b,
                      std::size_t block_size) {
  return a.size() > block_size && b.size() > block_size &&
         std::equal(a.begin(), a.begin() + long(block_size), b.begin());
}

}  // namespace tang
