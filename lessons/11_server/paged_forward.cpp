#include "11_server/paged_forward.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "11_server/exercise/paged_attention.hpp"  // exercise 11a

namespace tang {

namespace {

// An int8 pool: the new keys and values are stored as codes first, then every
// position, the new ones too, is rebuilt in float32 and attended as lesson 06
// does. Every position is read from its codes, so a text's logits do not
// depend on how its positions were computed: one piece of an opening or step
// by step, again after a preemption, or taken from the pool (tested).
void attend_from_codes(std::size_t l, float* out, const float* rows, std::size_t T,
                       const PagedText& text, BlockPool& pool, const GPTConfig& cfg) {
  const std::size_t C = cfg.n_embd, start = text.length();
  thread_local std::vector<float> keys, values, weights;  // (T_max, C), (T_max, C), (NH, T_max)
  keys.resize(cfg.block_size * C);
  values.resize(cfg.block_size * C);
  weights.resize(cfg.n_head * cfg.block_size);
  pool.write_rows(l, text.table, start, T, rows);
  pool.read_rows(l, text.table, start + T, keys.data(), values.data());
  for (std::size_t t = 0; t < T; ++t)  // new row t, position start + t, sees 0 .. start + t
    ops::attend(out + t * C, weights.data(), rows + t * 3 * C, keys.data(), values.data(), C,
                start + t + 1, C, cfg.n_head);
}

}  // namespace

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
  if (pool->numbers() == PoolNumbers::kInt8)
    return attend_from_codes(l, out, rows, T, *text, *pool, cfg);
  paged_attention_with_cache(out, rows, pool->keys(l), pool->values(l), text->table,
                             pool->block_size(), text->length(), T, cfg.n_embd, cfg.n_head);
}

}  // namespace tang
