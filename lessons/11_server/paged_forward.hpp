// paged_forward.hpp: lesson 06's cached forward over the paged cache.
//
// A text's cache is now its block table (block_pool.hpp): the pool's blocks
// holding its positions, in order. PagedCache, a text's table and the pool
// together, is a cache of the kind lesson 06's KVCache describes, so lesson
// 06's forward_with_cache runs over it unchanged: only its attention step
// differs, reading and writing its rows through the table (exercise 11a).
// Everything else, and so every logit, is lesson 06's, bit for bit (tested).
#pragma once

#include <span>
#include <vector>

#include "06_kvcache/kv_cache.hpp"  // forward_with_cache
#include "11_server/block_pool.hpp"
#include "gpt.hpp"

namespace tang {

// One text's view of the paged cache.
struct PagedText {
  std::vector<BlockId> table;       // its blocks, in order of position
  std::vector<TokenId> tokens;      // the characters at positions 0 .. length-1
  std::size_t registered = 0;       // its first blocks already registered as full
  BlockHash last_hash = kNoParent;  // the hash of block registered - 1
  std::size_t length() const { return tokens.size(); }
};

// Blocks `text` needs to hold `more` more positions; the caller allocates them.
std::size_t blocks_needed(const PagedText& text, std::size_t more, std::size_t block_size);

// Registers every block of `text` that is now full (block_pool.hpp).
void register_full_blocks(PagedText& text, BlockPool& pool);

// Gives every block of `text` back to the pool and empties it.
void release_all(PagedText& text, BlockPool& pool);

// Cuts `text` back to its first n positions (speculative decoding: the drafts
// the model rejected), as if it had never held the rest: the blocks past them
// go back to the pool. A block kept only in part that is registered (another
// text may hold it, or find it by its hash) is not written into again: its
// first rows are copied into a block of the text's own (copy on write).
// Returns false when that copy found no free block; the text then keeps only
// its whole blocks, and computes the rest again.
bool roll_back(PagedText& text, std::size_t n, BlockPool& pool);

// One text's paged cache as lesson 06's forward_with_cache reads it (kv_cache.hpp).
struct PagedCache {
  PagedText* text;
  BlockPool* pool;

  std::size_t positions() const { return text->length(); }
  // Throws std::invalid_argument unless T more positions fit in the context and
  // in the blocks of its table (the caller allocates them first).
  void check_room(std::size_t T, const GPTConfig& config) const;
  // Layer l: writes the new keys and values into its blocks, then each new
  // query attends over its positions so far (exercise 11a). rows (T, 3C), out (T, C).
  void attend(std::size_t l, float* out, const float* rows, std::size_t T, const GPT& model);
  // After the last layer: the text holds the new characters.
  void hold(std::span<const TokenId> tokens) {
    text->tokens.insert(text->tokens.end(), tokens.begin(), tokens.end());
  }
};

// tokens (B, T): T new characters for each of B texts, text b at positions
// texts[b]->length() onwards, its table already long enough: lesson 06's
// forward_with_cache over each text's PagedCache. Returns the logits as lesson
// 06's does: (B*T, V), or with kLastPosition (1, V) for one text, (B, V) for B
// texts of one character each.
template <class Matrices>
View<2> forward_with_cache(const GPT& model, const Matrices& m, std::span<const TokenId> tokens,
                           std::span<PagedText* const> texts, BlockPool& pool, Activations& a,
                           LogitsFor which) {
  std::vector<PagedCache> caches;  // (B)
  std::vector<PagedCache*> pointers;
  caches.reserve(texts.size());
  for (PagedText* text : texts) caches.push_back({text, &pool});
  for (PagedCache& cache : caches) pointers.push_back(&cache);
  return forward_with_cache(model, m, tokens, pointers, a, which);
}

}  // namespace tang
