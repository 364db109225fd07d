#include "11_server/block_pool.hpp"

#include <algorithm>
#include <stdexcept>

#include "11_server/exercise/cached_prefix.hpp"  // exercise 11b
#include "quantize_run.hpp"

namespace tang {

BlockPool::BlockPool(const GPTConfig& config, std::size_t blocks, std::size_t block_size,
                     PoolNumbers numbers)
    : block_size_(block_size), numbers_(numbers), C_(config.n_embd), blocks_(blocks) {
  if (blocks == 0 || block_size == 0) throw std::invalid_argument("BlockPool: no room");
  const std::size_t L = config.n_layer, rows = blocks * block_size;
  const std::size_t float_rows = numbers == PoolNumbers::kFloat32 ? rows : 0;
  keys_ = Tensor<3>::from_shape({L, float_rows, C_});
  values_ = Tensor<3>::from_shape({L, float_rows, C_});
  // Touch every page now: the system maps a page at its first write, and a step that
  // wrote the first position of a page would pay for it (several per step, in a batch).
  keys_.fill(0.0f);
  values_.fill(0.0f);
  if (numbers == PoolNumbers::kInt8) {
    key_codes_.assign(L * rows * C_, 0);
    value_codes_.assign(L * rows * C_, 0);
    key_scales_.assign(L * rows, 0.0f);
    value_scales_.assign(L * rows, 0.0f);
  }
  for (std::size_t b = blocks; b-- > 0;) free_.push_back(static_cast<BlockId>(b));  // 0 first
}

std::optional<BlockId> BlockPool::allocate() {
  BlockId id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else if (!lru_.empty()) {  // forget the least recently used cached block
    id = lru_.front();
    lru_.pop_front();
    Block& old = blocks_[id];
    index_.erase(old.hash);
    old.registered = false;
    old.tokens.clear();
  } else {
    return std::nullopt;
  }
  blocks_[id].holders = 1;
  return id;
}

void BlockPool::retain(BlockId block) {
  Block& b = blocks_.at(block);
  if (b.holders == 0) {
    if (!b.registered) throw std::logic_error("BlockPool::retain: a free block");
    lru_.erase(b.in_lru);  // cached -> in use
  }
  ++b.holders;
}

void BlockPool::release(BlockId block) {
  Block& b = blocks_.at(block);
  if (b.holders == 0) throw std::logic_error("BlockPool::release: a block no text holds");
  if (--b.holders > 0) return;
  if (b.registered) {
    b.in_lru = lru_.insert(lru_.end(), block);  // the most recently used
  } else {
    free_.push_back(block);
  }
}

BlockHash BlockPool::register_full(BlockId block, BlockHash parent,
                                   std::span<const TokenId> tokens) {
  const BlockHash hash = block_hash(parent, tokens);
  Block& b = blocks_.at(block);
  if (!b.registered && index_.emplace(hash, block).second) {
    b.registered = true;
    b.hash = hash;
    b.tokens.assign(tokens.begin(), tokens.end());
  }
  return hash;
}

std::vector<BlockId> BlockPool::take_prefix(std::span<const TokenId> tokens,
                                            std::size_t max_blocks) {
  std::vector<BlockId> found = cached_prefix(index_, tokens, block_size_, max_blocks);
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::vector<TokenId>& held = blocks_.at(found[i]).tokens;
    if (!std::equal(held.begin(), held.end(), tokens.begin() + static_cast<long>(i * block_size_),
                    tokens.begin() + static_cast<long>((i + 1) * block_size_))) {
      found.resize(i);  // a hash collision: the opening ends before this block
      break;
    }
  }
  for (BlockId id : found) retain(id);
  return found;
}

std::size_t BlockPool::bytes() const {
  return (keys_.size() + values_.size() + key_scales_.size() + value_scales_.size()) *
             sizeof(float) +
         key_codes_.size() + value_codes_.size();
}

std::size_t BlockPool::code_row(std::size_t l, std::span<const BlockId> table,
                                std::size_t p) const {
  return (l * blocks_.size() + table[p / block_size_]) * block_size_ + p % block_size_;
}

void BlockPool::read_rows(std::size_t l, std::span<const BlockId> table, std::size_t n, float* keys,
                          float* values) const {
  if (numbers_ != PoolNumbers::kInt8) throw std::logic_error("BlockPool::read_rows: not int8");
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t r = code_row(l, table, p);
    dequantize_run(&key_codes_[r * C_], key_scales_[r], C_, 1, keys + p * C_);
    dequantize_run(&value_codes_[r * C_], value_scales_[r], C_, 1, values + p * C_);
  }
}

void BlockPool::write_rows(std::size_t l, std::span<const BlockId> table, std::size_t start,
                           std::size_t T, const float* rows) {
  if (numbers_ != PoolNumbers::kInt8) throw std::logic_error("BlockPool::write_rows: not int8");
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t r = code_row(l, table, start + t);
    const float* row = rows + t * 3 * C_;  // q | k | v
    key_scales_[r] = quantize_run(row + C_, C_, 1, kInt8Largest, &key_codes_[r * C_]);
    value_scales_[r] = quantize_run(row + 2 * C_, C_, 1, kInt8Largest, &value_codes_[r * C_]);
  }
}

void BlockPool::copy_rows(BlockId from, BlockId to, std::size_t rows) {
  if (rows > block_size_ || from >= blocks_.size() || to >= blocks_.size())
    throw std::invalid_argument("BlockPool::copy_rows: no such rows");
  const std::size_t L = keys_.shape(0), pool_rows = blocks_.size() * block_size_;
  for (std::size_t l = 0; l < L; ++l) {
    const std::size_t src = l * pool_rows + from * block_size_,
                      dst = l * pool_rows + to * block_size_;
    if (numbers_ == PoolNumbers::kFloat32) {
      for (Tensor<3>* t : {&keys_, &values_}) {
        const float* first = t->data() + src * C_;
        std::copy(first, first + rows * C_, t->data() + dst * C_);
      }
      continue;
    }
    for (std::vector<std::int8_t>* codes : {&key_codes_, &value_codes_})
      std::copy_n(codes->begin() + long(src * C_), rows * C_, codes->begin() + long(dst * C_));
    for (std::vector<float>* scales : {&key_scales_, &value_scales_})
      std::copy_n(scales->begin() + long(src), rows, scales->begin() + long(dst));
  }
}

PoolCounts BlockPool::counts() const {
  PoolCounts c;
  c.total = blocks_.size();
  for (const Block& b : blocks_) {
    c.in_use += b.holders > 0;
    c.shared += b.holders > 1;
  }
  c.cached = lru_.size();
  c.free = free_.size();
  return c;
}

}  // namespace tang
