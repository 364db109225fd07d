#include "11_server/block_pool.hpp"

#include <algorithm>
#include <stdexcept>

#include "11_server/exercise/cached_prefix.hpp"  // exercise 11b

namespace tang {

BlockPool::BlockPool(const GPTConfig& config, std::size_t blocks, std::size_t block_size)
    : block_size_(block_size),
      keys_(Tensor<3>::from_shape({config.n_layer, blocks * block_size, config.n_embd})),
      values_(Tensor<3>::from_shape({config.n_layer, blocks * block_size, config.n_embd})),
      blocks_(blocks) {
  if (blocks == 0 || block_size == 0) throw std::invalid_argument("BlockPool: no room");
  // Touch every page now: the system maps a page at its first write, and a step that
  // wrote the first position of a page would pay for it (several per step, in a batch).
  keys_.fill(0.0f);
  values_.fill(0.0f);
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

void BlockPool::copy_rows(BlockId from, BlockId to, std::size_t rows) {
  if (rows > block_size_ || from >= blocks_.size() || to >= blocks_.size())
    throw std::invalid_argument("BlockPool::copy_rows: no such rows");
  const std::size_t C = keys_.shape(2);
  for (std::size_t l = 0; l < keys_.shape(0); ++l) {
    for (Tensor<3>* t : {&keys_, &values_}) {
      const float* src = &(*t)(l, from * block_size_, 0);
      std::copy(src, src + rows * C, &(*t)(l, to * block_size_, 0));
    }
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
