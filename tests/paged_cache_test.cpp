// paged_cache_test: lesson 11's paged cache. The block pool's states and
// counts, prefix lookup through the hash chain, and the paged forward against
// lesson 06's contiguous cache, bit for bit, with the blocks scattered over the pool.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "11_server/block_pool.hpp"
#include "11_server/paged_forward.hpp"
#include "tiny_golden.hpp"

namespace {

using tang::BlockId;
using tang::LogitsFor;
using tang::TokenId;

std::vector<TokenId> random_tokens(std::size_t n, std::size_t vocab, std::uint64_t seed) {
  tang::Rng rng(seed);
  std::vector<TokenId> tokens(n);
  for (TokenId& t : tokens) t = static_cast<TokenId>(rng.below(vocab));
  return tokens;
}

// Hands out the pool's blocks in a shuffled order: a text's blocks lie anywhere.
void scatter(tang::BlockPool& pool, std::uint64_t seed) {
  std::vector<BlockId> all;
  while (const auto b = pool.allocate()) all.push_back(*b);
  tang::Rng rng(seed);
  for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.below(i)]);
  for (BlockId b : all) pool.release(b);
}

bool allocate_for(tang::PagedText& text, std::size_t more, tang::BlockPool& pool) {
  for (std::size_t n = tang::blocks_needed(text, more, pool.block_size()); n > 0; --n) {
    const auto b = pool.allocate();
    if (!b) return false;
    text.table.push_back(*b);
  }
  return true;
}

// Every step of a whole context, one character at a time, and a prefill then
// steps: the paged logits are lesson 06's, bit for bit.
TEST(PagedForward, EveryStepIsTheContiguousCachesBitForBit) {
  const tang::GPT model = tang::testing::random_model(3);
  const auto& config = model.config();
  const std::vector<TokenId> tokens = random_tokens(config.block_size, config.vocab_size, 4);
  for (const std::size_t block_size : {1, 5, 16, 64}) {
    tang::BlockPool pool(config, 3 * config.block_size / block_size + 3, block_size);
    scatter(pool, block_size);
    tang::PagedText paged;
    tang::KVCache contiguous(config);
    tang::Activations a(config), b(config);
    const tang::ModelMatrices<> m(model);
    for (std::size_t i = 0; i < config.block_size; ++i) {
      const std::span<const TokenId> one = std::span(tokens).subspan(i, 1);
      ASSERT_TRUE(allocate_for(paged, 1, pool));
      tang::PagedText* const texts[] = {&paged};
      const auto got =
          tang::forward_with_cache(model, m, one, texts, pool, a, LogitsFor::kLastPosition);
      const auto want = tang::forward_with_cache(model, one, i, contiguous, b);
      ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin()))
          << "block size " << block_size << ", position " << i;
    }
    EXPECT_EQ(paged.length(), config.block_size);
    EXPECT_EQ(paged.table.size(), (config.block_size + block_size - 1) / block_size);
  }
}

TEST(PagedForward, APrefillThenStepsAndBTextsAtOnceAreTheContiguousCaches) {
  const tang::GPT model = tang::testing::random_model(5);
  const auto& config = model.config();
  tang::BlockPool pool(config, 40, 8);
  scatter(pool, 6);
  const tang::ModelMatrices<> m(model);
  // three texts, a prefill each of a different length, then 10 batched steps
  std::vector<std::vector<TokenId>> texts;
  for (std::size_t b = 0; b < 3; ++b) texts.push_back(random_tokens(30, config.vocab_size, 10 + b));
  const std::size_t opening[] = {3, 17, 20};
  std::vector<tang::PagedText> paged(3);
  std::vector<tang::KVCache> contiguous(3, tang::KVCache(config));
  tang::Activations acts = tang::step_activations(config, 32),
                    single(config, 1, tang::Keep::kEverything),
                    batched = tang::step_activations(config, 3);
  for (std::size_t b = 0; b < 3; ++b) {
    const auto first = std::span(texts[b]).first(opening[b]);
    ASSERT_TRUE(allocate_for(paged[b], first.size(), pool));
    tang::PagedText* const one[] = {&paged[b]};
    const auto got =
        tang::forward_with_cache(model, m, first, one, pool, acts, LogitsFor::kAllPositions);
    const std::vector<float> copy(got.begin(), got.end());
    tang::KVCache* const c[] = {&contiguous[b]};
    const auto want =
        tang::forward_with_cache(model, m, first, c, single, LogitsFor::kAllPositions);
    ASSERT_TRUE(std::equal(copy.begin(), copy.end(), want.begin())) << "prefill of text " << b;
  }
  for (std::size_t step = 0; step < 10; ++step) {
    std::vector<TokenId> next;
    std::vector<tang::PagedText*> p;
    std::vector<tang::KVCache*> c;
    for (std::size_t b = 0; b < 3; ++b) {
      next.push_back(texts[b][paged[b].length()]);
      ASSERT_TRUE(allocate_for(paged[b], 1, pool));
      p.push_back(&paged[b]);
      c.push_back(&contiguous[b]);
    }
    const auto got =
        tang::forward_with_cache(model, m, next, p, pool, acts, LogitsFor::kLastPosition);
    const std::vector<float> copy(got.begin(), got.end());
    const auto want =
        tang::forward_with_cache(model, m, next, c, batched, LogitsFor::kLastPosition);
    ASSERT_TRUE(std::equal(copy.begin(), copy.end(), want.begin())) << "batched step " << step;
  }
}

// Speculative decoding cuts a text back past the drafts the model rejected: the
// text after roll_back(n) is the text that only ever held n positions, bit for
// bit, whether n ends inside a block, on a block's end, or inside a registered
// block that another text holds too (which is copied, not written into); in a
// float32 pool and in an int8 one (its codes and scales copied).
TEST(PagedForward, ARolledBackTextIsOneThatNeverHeldTheRest) {
  const tang::GPT model = tang::testing::random_model(7);
  const auto& config = model.config();
  const tang::ModelMatrices<> m(model);
  const std::vector<TokenId> tokens = random_tokens(40, config.vocab_size, 8);
  const std::vector<TokenId> other = random_tokens(8, config.vocab_size, 9);  // written after
  tang::Activations a = tang::step_activations(config, 40), b = tang::step_activations(config, 40);
  const auto prefill = [&](tang::PagedText& t, std::span<const TokenId> more, tang::BlockPool& pool,
                           tang::Activations& acts) {
    EXPECT_TRUE(allocate_for(t, more.size(), pool));
    tang::PagedText* const one[] = {&t};
    const auto logits =
        tang::forward_with_cache(model, m, more, one, pool, acts, LogitsFor::kAllPositions);
    tang::register_full_blocks(t, pool);
    return std::vector<float>(logits.begin(), logits.end());
  };
  for (const auto numbers : {tang::PoolNumbers::kFloat32, tang::PoolNumbers::kInt8}) {
    for (const std::size_t n : {0u, 5u, 8u, 13u, 16u, 21u}) {
      for (const bool shared : {false, true}) {
        tang::BlockPool pool(config, 30, 8, numbers);
        scatter(pool, n + 1);
        tang::PagedText rolled, fresh, holder;
        prefill(rolled, std::span(tokens).first(n + 9), pool, a);
        if (shared) {  // another text takes the rolled text's full blocks by their hash
          for (const BlockId id : pool.take_prefix(tokens, (n + 9) / 8)) holder.table.push_back(id);
          holder.tokens.assign(tokens.begin(), tokens.begin() + long(holder.table.size() * 8));
          holder.registered = holder.table.size();
        }
        ASSERT_TRUE(tang::roll_back(rolled, n, pool)) << "n " << n;
        if (n > 0) prefill(fresh, std::span(tokens).first(n), pool, b);
        EXPECT_EQ(rolled.tokens, fresh.tokens) << "n " << n;
        EXPECT_EQ(rolled.table.size(), fresh.table.size()) << "n " << n;
        EXPECT_EQ(rolled.registered, fresh.registered) << "n " << n;
        EXPECT_EQ(rolled.last_hash, fresh.last_hash) << "n " << n;
        // the same characters after: the same logits at every position
        const std::vector<float> after_rollback = prefill(rolled, other, pool, a);
        const std::vector<float> never_held = prefill(fresh, other, pool, b);
        EXPECT_EQ(after_rollback, never_held) << "n " << n << (shared ? ", shared" : "");
        if (shared && !holder.table.empty() && numbers == tang::PoolNumbers::kFloat32) {
          // the holder's blocks are as they were
          tang::KVCache contiguous(config);
          tang::Activations c(config, 1, tang::Keep::kEverything);
          tang::KVCache* const cc[] = {&contiguous};
          const std::span<const TokenId> held(holder.tokens);
          tang::forward_with_cache(model, m, held, cc, c, LogitsFor::kLastPosition);
          const std::vector<TokenId> next = {tokens[held.size()]};
          const auto want =
              tang::forward_with_cache(model, m, next, cc, c, LogitsFor::kLastPosition);
          const std::vector<float> wanted(want.begin(), want.end());
          EXPECT_EQ(prefill(holder, next, pool, a), wanted) << "n " << n;
        }
        tang::release_all(rolled, pool);
        tang::release_all(fresh, pool);
        tang::release_all(holder, pool);
        EXPECT_EQ(pool.counts().in_use, 0u);
      }
    }
  }
}

// With no free block to copy a shared block into, roll_back keeps the text's
// whole blocks only (it computes the rest again) and says so.
TEST(PagedForward, ARollBackWithNoBlockToCopyIntoKeepsWholeBlocks) {
  const tang::GPT model = tang::testing::random_model(7);
  const auto& config = model.config();
  const tang::ModelMatrices<> m(model);
  const std::vector<TokenId> tokens = random_tokens(24, config.vocab_size, 8);
  tang::BlockPool pool(config, 3, 8);  // exactly the text's three blocks
  tang::Activations acts = tang::step_activations(config, 24);
  tang::PagedText text;
  ASSERT_TRUE(allocate_for(text, tokens.size(), pool));
  tang::PagedText* const one[] = {&text};
  tang::forward_with_cache(model, m, tokens, one, pool, acts, LogitsFor::kLastPosition);
  tang::register_full_blocks(text, pool);
  EXPECT_EQ(text.registered, 3u);
  EXPECT_FALSE(tang::roll_back(text, 21, pool)) << "block 2 is registered and no block is free";
  EXPECT_EQ(text.length(), 16u) << "cut back to its whole blocks";
  EXPECT_EQ(text.table.size(), 2u);
  EXPECT_EQ(text.registered, 2u);
  EXPECT_TRUE(tang::roll_back(text, 8, pool)) << "a cut on a block's end copies nothing";
  EXPECT_EQ(text.table.size(), 1u);
  tang::release_all(text, pool);
  EXPECT_EQ(pool.counts().in_use, 0u);
}

TEST(BlockPool, AnInt8PoolHoldsAPositionIn1056BytesAndRebuildsItsRows) {
  const tang::GPT model = tang::testing::random_model(3);
  tang::GPTConfig config = model.config();
  config.n_layer = 4, config.n_embd = 128;  // the shipped model's cache
  const tang::BlockPool fp32(config, 8, 16), int8(config, 8, 16, tang::PoolNumbers::kInt8);
  EXPECT_EQ(fp32.bytes(), 8u * 16 * 4 * 2 * 128 * 4);
  EXPECT_EQ(int8.bytes(), 8u * 16 * 4 * 2 * (128 + 4));  // a code a number, a scale a row
  tang::BlockPool pool(config, 4, 2, tang::PoolNumbers::kInt8);
  const std::vector<BlockId> table = {3, 1};  // positions 0-1 in block 3, 2-3 in block 1
  std::vector<float> rows(4 * 3 * 128), k(4 * 128), v(4 * 128);  // (4, 3C) q | k | v a row
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = float(int(i % 255) - 127) / 64.0f;
  pool.write_rows(2, table, 0, 4, rows.data());
  pool.read_rows(2, table, 4, k.data(), v.data());
  for (std::size_t p = 0; p < 4; ++p) {
    const float* row = &rows[p * 3 * 128];
    const auto half_step = [&](std::size_t from) {  // the row's largest / 127 / 2
      float largest = 0;
      for (std::size_t j = 0; j < 128; ++j) largest = std::max(largest, std::abs(row[from + j]));
      return largest / 127.0f / 2.0f * 1.0001f;
    };
    const float key_bound = half_step(128), value_bound = half_step(256);
    for (std::size_t c = 0; c < 128; ++c) {
      ASSERT_NEAR(k[p * 128 + c], row[128 + c], key_bound) << p << ", " << c;
      ASSERT_NEAR(v[p * 128 + c], row[256 + c], value_bound) << p << ", " << c;
    }
  }
  std::vector<float> other(4 * 128);
  pool.read_rows(1, table, 4, other.data(), other.data());  // layer 1 was not written
  EXPECT_EQ(other, std::vector<float>(4 * 128, 0.0f));
}

// An int8 pool reads every position from its codes, the newest included: a
// text's logits are the same bit for bit whether its opening was computed step
// by step, in one piece or in two, and close to a float32 pool's, not equal.
TEST(PagedForward, AnInt8PoolsLogitsDoNotDependOnHowTheOpeningWasComputed) {
  const tang::GPT model = tang::testing::random_model(9);
  const auto& config = model.config();
  const tang::ModelMatrices<> m(model);
  const std::vector<TokenId> tokens = random_tokens(60, config.vocab_size, 10);
  const auto logits_of_the_last_20 = [&](std::vector<std::size_t> pieces,
                                         tang::PoolNumbers numbers) {
    tang::BlockPool pool(config, 20, 8, numbers);
    scatter(pool, 11);
    tang::Activations acts = tang::step_activations(config, 40);
    tang::PagedText text;
    tang::PagedText* const one[] = {&text};
    pieces.insert(pieces.end(), 20, 1);  // then 20 steps
    std::vector<float> last;
    for (const std::size_t T : pieces) {
      EXPECT_TRUE(allocate_for(text, T, pool));
      const auto logits =
          tang::forward_with_cache(model, m, std::span(tokens).subspan(text.length(), T), one, pool,
                                   acts, LogitsFor::kLastPosition);
      if (text.length() > 40) last.insert(last.end(), logits.begin(), logits.end());
    }
    return last;
  };
  const auto int8 = tang::PoolNumbers::kInt8;
  const std::vector<float> step_by_step =
      logits_of_the_last_20(std::vector<std::size_t>(40, 1), int8);
  EXPECT_EQ(logits_of_the_last_20({40}, int8), step_by_step);
  EXPECT_EQ(logits_of_the_last_20({17, 23}, int8), step_by_step);
  const std::vector<float> fp32 = logits_of_the_last_20({40}, tang::PoolNumbers::kFloat32);
  EXPECT_NE(fp32, step_by_step);
  for (std::size_t i = 0; i < fp32.size(); ++i) ASSERT_NEAR(fp32[i], step_by_step[i], 0.05f) << i;
}

TEST(PagedForward, RefusesATextWithoutItsBlocks) {
  const tang::GPT model = tang::testing::random_model(3);
  tang::BlockPool pool(model.config(), 8, 16);
  tang::PagedText text;
  tang::Activations acts(model.config());
  const std::vector<TokenId> one = {1};
  tang::PagedText* const texts[] = {&text};
  EXPECT_THROW(tang::forward_with_cache(model, tang::ModelMatrices<>(model), one, texts, pool, acts,
                                        LogitsFor::kLastPosition),
               std::invalid_argument);
}

TEST(BlockPool, CountsEveryStateAndEvictsTheLeastRecentlyUsed) {
  const tang::GPT model = tang::testing::random_model(3);
  tang::BlockPool pool(model.config(), 3, 2);
  auto counts = pool.counts();
  EXPECT_EQ(counts.total, 3u);
  EXPECT_EQ(counts.free, 3u);
  const BlockId a = *pool.allocate(), b = *pool.allocate(), c = *pool.allocate();
  EXPECT_FALSE(pool.allocate()) << "every block is in use";
  const std::vector<TokenId> ab = {1, 2}, cd = {3, 4}, ef = {5, 6};
  const tang::BlockHash ha = pool.register_full(a, tang::kNoParent, ab);
  pool.register_full(b, ha, cd);
  pool.retain(a);  // a second text holds a
  counts = pool.counts();
  EXPECT_EQ(counts.in_use, 3u);
  EXPECT_EQ(counts.shared, 1u);
  pool.release(a), pool.release(a), pool.release(b), pool.release(c);
  counts = pool.counts();
  EXPECT_EQ(counts.cached, 2u) << "a and b are full and registered";
  EXPECT_EQ(counts.free, 1u) << "c was never registered";
  // an opening 1 2 3 4 7 finds a then b
  const std::vector<TokenId> request = {1, 2, 3, 4, 7};
  EXPECT_EQ(pool.take_prefix(request, 10), (std::vector<BlockId>{a, b}));
  EXPECT_EQ(pool.counts().in_use, 2u);
  pool.release(b), pool.release(a);  // b is now older in the LRU than a
  EXPECT_EQ(*pool.allocate(), c) << "the free block first";
  EXPECT_EQ(*pool.allocate(), b) << "then the least recently used cached block";
  EXPECT_EQ(pool.take_prefix(request, 10), (std::vector<BlockId>{a}))
      << "b was forgotten: the chain stops after a";
  (void)ef;
}

TEST(BlockPool, APrefixStopsAtMaxBlocksAtAMissAndAtAPartBlock) {
  const tang::GPT model = tang::testing::random_model(3);
  tang::BlockPool pool(model.config(), 4, 2);
  const std::vector<TokenId> text = {1, 2, 3, 4, 5, 6, 7};
  std::vector<BlockId> blocks;
  tang::BlockHash parent = tang::kNoParent;
  for (std::size_t i = 0; i < 3; ++i) {
    blocks.push_back(*pool.allocate());
    parent = pool.register_full(blocks.back(), parent, std::span(text).subspan(2 * i, 2));
  }
  EXPECT_EQ(pool.take_prefix(text, 10).size(), 3u) << "7 is a part block";
  EXPECT_EQ(pool.take_prefix(text, 2).size(), 2u);
  const std::vector<TokenId> other = {1, 2, 9, 9, 5, 6};
  EXPECT_EQ(pool.take_prefix(other, 10).size(), 1u) << "5 6 after 9 9 is another block";
  const std::vector<TokenId> later = {3, 4, 5, 6};
  EXPECT_TRUE(pool.take_prefix(later, 10).empty()) << "3 4 as a first block is not 3 4 after 1 2";
}

}  // namespace
