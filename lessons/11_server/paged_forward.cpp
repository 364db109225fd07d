#include "11_server/paged_forward.hpp"

#include <stdexcept>

#include "11_server/exercise/paged_attention.hpp"  // exercise 11a

namespace tang {

std::size_t blocks_needed(const PagedText& text, std::size_t more, std::size_t block_size) {
  const std::size_t wanted = (text.length() + more + block_size - 1) / block_size;
  return wanted > text.table.size() ? wanted - text.table.size() : 0;
}

void register_full_blocks(PagedText& text, BlockPool& pool) {
  const std::size_t size = pool.block_size();
  while ((text.registered + 1) * size <= text.length()) {
    const std::span<const TokenId> held(text.tokens.data() + text.registered * size, size);
    text.last_hash = pool.register_full(text.table[text.registered], text.last_hash, held);
    ++text.registered;
  }
}

void release_all(PagedText& text, BlockPool& pool) {
  for (BlockId id : text.table) pool.release(id);
  text = PagedText{};
}

void PagedCache::check_room(std::size_t T, const GPTConfig& config) const {
  check_context(text->length(), T, config);
  if (blocks_needed(*text, T, pool->block_size()) > 0)
    throw std::invalid_argument("forward_with_cache: allocate its blocks first");
}

void PagedCache::attend(std::size_t l, float* out, const float* rows, std::size_t T,
                        const GPT& model) {
  const GPTConfig& cfg = model.config();
  paged_attention_with_cache(out, rows, pool->keys(l), pool->values(l), text->table,
                             pool->block_size(), text->length(), T, cfg.n_embd, cfg.n_head);
}

}  // namespace tang
