#include "11_server/paged_forward.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "06_kvcache/exercise/attention_with_cache.hpp"  // exercise 06a
#include "11_server/exercise/paged_attention.hpp"        // exercise 11a

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

bool roll_back(PagedText& text, std::size_t n, BlockPool& pool) {
  if (n > text.length()) throw std::invalid_argument("roll_back: past the text's end");
  const std::size_t size = pool.block_size();
  const std::size_t keep = (n + size - 1) / size;  // blocks that still hold a position
  for (std::size_t b = keep; b < text.table.size(); ++b) pool.release(text.table[b]);
  text.table.resize(keep);
  bool copied = true;
  if (n % size != 0 && keep <= text.registered) {  // a registered block, kept in part
    if (const std::optional<BlockId> own = pool.allocate()) {
      pool.copy_rows(text.table.back(), *own, n % size);
      pool.release(text.table.back());
      text.table.back() = *own;
    } else {
      pool.release(text.table.back());
      text.table.pop_back();
      n -= n % size;
      copied = false;
    }
  }
  text.tokens.resize(n);
  text.registered = std::min(text.registered, n / size);
  text.last_hash = kNoParent;  // the chain of the blocks still registered
  for (std::size_t b = 0; b < text.registered; ++b)
    text.last_hash = block_hash(text.last_hash, std::span(text.tokens).subspan(b * size, size));
  return copied;
}

void PagedCache::check_room(std::size_t T, const GPTConfig& config) const {
  check_context(text->length(), T, config);
  if (blocks_needed(*text, T, pool->block_size()) > 0)
    throw std::invalid_argument("forward_with_cache: allocate its blocks first");
}

void PagedCache::attend(std::size_t l, float* out, const float* rows, std::size_t T,
                        const GPT& model) {
  const GPTConfig& cfg = model.config();
  const std::size_t C = cfg.n_embd, start = text->length();
  if (pool->numbers() == PoolNumbers::kFloat32) {
    paged_attention_with_cache(out, rows, pool->keys(l), pool->values(l), text->table,
                               pool->block_size(), start, T, C, cfg.n_head);
    return;
  }
  // An int8 pool (lesson 13's int8-token cache): the held positions rebuilt in
  // float32, lesson 06's attention over them (it appends the new rows as
  // computed), then the new rows stored as codes. Same numbers as lesson 13's
  // QuantizedCache, bit for bit (tested).
  thread_local std::vector<float> keys, values;  // (T_max, C) scratch
  keys.resize(cfg.block_size * C), values.resize(cfg.block_size * C);
  pool->read_rows(l, text->table, start, keys.data(), values.data());
  attention_with_cache(out, rows, keys.data(), values.data(), start, T, C, cfg.n_head);
  pool->write_rows(l, text->table, start, T, &keys[start * C], &values[start * C]);
}

}  // namespace tang
