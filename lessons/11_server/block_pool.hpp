// block_pool.hpp: lesson 11's paged KV cache: one pool of blocks for every text.
//
// Lesson 06 gives each text a cache of the whole context (T_max positions),
// allocated when the text starts, most of it never used by a short poem. A
// server keeps instead one pool, allocated once, of blocks of block_size
// positions (every layer's keys and values for those positions), and gives a
// text a block when it needs one: memory is used in steps of block_size
// positions, never fragmented, and a text's blocks need not lie together (its
// block table, paged_forward.hpp, says where they are).
//
// A block is in one of three states:
//   in use   held by one or more texts (its reference count)
//   cached   held by none, but full and registered under its hash: a later
//            request with the same opening takes it back (a prefix hit)
//   free     held by none and not findable
// allocate() takes a free block, else forgets the least recently used cached
// one; with neither, the pool is full (the scheduler waits or preempts).
//
// The pool keeps its keys and values as float32 (lesson 06's numbers), or in
// int8 with one scale per position and layer (lesson 13's "int8-token"): 1,056
// bytes a position here against 4,096, so the same bytes hold 3.9 times the
// positions. Attention then stores the new positions as codes (write_rows) and
// reads every position rebuilt in float32 (read_rows): paged_forward.cpp.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <span>
#include <vector>

#include "11_server/block_table.hpp"
#include "config.hpp"
#include "tensor.hpp"

namespace tang {

struct PoolCounts {
  std::size_t total = 0;
  std::size_t in_use = 0;  // held by at least one text
  std::size_t shared = 0;  // held by two or more
  std::size_t cached = 0;  // held by none, kept for a prefix hit
  std::size_t free = 0;
};

enum class PoolNumbers { kFloat32, kInt8 };  // how the pool stores keys and values

class BlockPool {
 public:
  // `blocks` blocks of `block_size` positions for a model of `config`.
  BlockPool(const GPTConfig& config, std::size_t blocks, std::size_t block_size,
            PoolNumbers numbers = PoolNumbers::kFloat32);

  std::size_t block_size() const { return block_size_; }
  std::size_t blocks() const { return blocks_.size(); }
  PoolNumbers numbers() const { return numbers_; }
  std::size_t bytes() const;
  // A float32 pool's keys and values of one layer: (blocks x block_size, C).
  float* keys(std::size_t layer) { return &keys_(layer, 0, 0); }
  float* values(std::size_t layer) { return &values_(layer, 0, 0); }

  // An int8 pool: positions 0 .. n-1 of the text whose blocks are `table`, layer
  // l, rebuilt in float32 into keys and values (n, C).
  void read_rows(std::size_t l, std::span<const BlockId> table, std::size_t n, float* keys,
                 float* values) const;
  // An int8 pool: stores the keys and values of rows (T, 3C) (q | k | v a row)
  // as positions start .. start+T-1 of that text, layer l, a scale a row.
  void write_rows(std::size_t l, std::span<const BlockId> table, std::size_t start, std::size_t T,
                  const float* rows);

  // A block for a text to write, held once; nothing when every block is in use.
  std::optional<BlockId> allocate();
  // Another text holds `block` too (a prefix hit).
  void retain(BlockId block);
  // A text lets go of `block`; with no holder left it is cached when registered, else free.
  void release(BlockId block);
  // `block` is full and final: it holds `tokens` after the block whose hash is
  // `parent`. Registers it so later openings find it; returns its hash. (If the
  // hash is already registered to another block, this one stays unregistered.)
  BlockHash register_full(BlockId block, BlockHash parent, std::span<const TokenId> tokens);

  // The cached blocks of `tokens`' longest opening (exercise 11b), at most
  // max_blocks, each held once more; a block whose tokens differ from the
  // request's (a hash collision) ends the opening there.
  std::vector<BlockId> take_prefix(std::span<const TokenId> tokens, std::size_t max_blocks);

  // Copies the first `rows` positions of block `from` into block `to`, every layer.
  void copy_rows(BlockId from, BlockId to, std::size_t rows);

  PoolCounts counts() const;

 private:
  struct Block {
    std::size_t holders = 0;
    bool registered = false;
    BlockHash hash = 0;
    std::vector<TokenId> tokens;          // what it holds, once registered
    std::list<BlockId>::iterator in_lru;  // valid while cached
  };
  // Pool row r = block x block_size + offset, in layer l, of an int8 pool.
  std::size_t code_row(std::size_t l, std::span<const BlockId> table, std::size_t p) const;
  std::size_t block_size_;
  PoolNumbers numbers_;
  std::size_t C_;
  Tensor<3> keys_, values_;  // (L, blocks x block_size, C) float32; empty for int8
  std::vector<std::int8_t> key_codes_, value_codes_;  // (L, blocks x block_size, C) int8
  std::vector<float> key_scales_, value_scales_;      // (L, blocks x block_size) int8
  std::vector<Block> blocks_;                         // (blocks)
  std::vector<BlockId> free_;                         // free blocks, the next one at the back
  std::list<BlockId> lru_;                            // cached blocks, least recently used first
  PrefixIndex index_;                                 // registered blocks by hash
};

}  // namespace tang
