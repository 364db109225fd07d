// kv_cache_test: lesson 06's KV cache (lessons/06_kvcache/kv_cache.hpp) against the
// plain forward pass of common/gpt.hpp.
//
// The cached forward runs the same per-row arithmetic as the plain one (the same
// matmul and LayerNorm rows, and ops::attend over the same keys in the same order),
// so everything here is compared BIT FOR BIT: cached and uncached logits, the text
// written, the keys and values in the cache. Against the float64 NumPy reference
// (tiny_golden.hpp) the usual relative tolerance applies.

#include "06_kvcache/kv_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "checkpoint.hpp"
#include "generate.hpp"
#include "gpt.hpp"
#include "rng.hpp"
#include "tiny_golden.hpp"

namespace {

using tang::LogitsFor;
using tang::TokenId;
using tang::testing::bit_difference;
using tang::testing::copy_of;
using tang::testing::kTolerance;
using tang::testing::relative_error;

class TinyCache : public ::testing::Test {
 protected:
  TinyCache()
      : model(tang::testing::tiny_model()),
        golden(tang::testing::load_golden()),
        V(model.config().vocab_size),
        T(golden.tokens.size()),
        cache(model.config()),
        acts(model.config(), 1, tang::Keep::kEverything),
        plain_acts(model.config(), 1, tang::Keep::kEverything) {}

  // The plain forward pass over the whole golden text, every position.
  std::vector<float> plain_all() {
    return copy_of(tang::forward(model, golden.tokens, plain_acts, LogitsFor::kAllPositions));
  }
  std::span<const float> row(const std::vector<float>& all, std::size_t t) const {
    return std::span<const float>(all).subspan(t * V, V);
  }

  const tang::GPT& model;
  tang::testing::Golden golden;
  std::size_t V, T;
  tang::KVCache cache;
  tang::Activations acts, plain_acts;
};

// --- the cached forward pass ----------------------------------------------------------

TEST_F(TinyCache, AllAtOnceFromAnEmptyCacheIsThePlainForwardPass) {
  const auto logits = copy_of(
      tang::forward_with_cache(model, golden.tokens, 0, cache, acts, LogitsFor::kAllPositions));
  EXPECT_EQ(cache.length, T);
  EXPECT_LE(relative_error(logits, golden.logits), kTolerance);
  EXPECT_EQ(bit_difference(logits, plain_all()), "");
}

TEST_F(TinyCache, OneTokenAtATimeGivesThePlainBits) {
  const auto all = plain_all();
  for (std::size_t i = 0; i < T; ++i) {
    const auto step = copy_of(
        tang::forward_with_cache(model, std::span(golden.tokens).subspan(i, 1), i, cache, acts));
    EXPECT_EQ(cache.length, i + 1);
    EXPECT_EQ(bit_difference(step, row(all, i)), "") << "step " << i;
    EXPECT_LE(relative_error(step, golden.row(i)), kTolerance) << "step " << i;
  }
}

// Prefill a prompt of several tokens, then continue in chunks: the causal mask must
// shift by what the cache holds (new position t sees 0 .. start+t, not more, not less).
TEST_F(TinyCache, PrefillThenChunksGiveThePlainBits) {
  const auto all = plain_all();
  for (const std::vector<std::size_t>& chunks :
       {std::vector<std::size_t>{5, 1, 1, 5}, {1, 4, 7}, {3, 3, 3, 3}, {11, 1}}) {
    cache.length = 0;
    std::size_t start = 0;
    for (std::size_t n : chunks) {
      const auto logits =
          tang::forward_with_cache(model, std::span(golden.tokens).subspan(start, n), start, cache,
                                   acts, LogitsFor::kAllPositions);
      ASSERT_EQ(logits.shape(0), n);
      for (std::size_t t = 0; t < n; ++t) {
        const std::span<const float> got(logits.data() + t * V, V);
        EXPECT_EQ(bit_difference(got, row(all, start + t)), "")
            << "chunk starting at " << start << ", position " << start + t;
      }
      start += n;
    }
    EXPECT_EQ(cache.length, T);
  }
}

TEST_F(TinyCache, TheCacheHoldsEachLayersKeysAndValues) {
  plain_all();  // plain_acts now holds every layer's q | k | v for all T positions
  std::size_t start = 0;
  for (std::size_t n : {4u, 1u, 7u}) {
    tang::forward_with_cache(model, std::span(golden.tokens).subspan(start, n), start, cache, acts);
    start += n;
  }
  const std::size_t C = model.config().n_embd;
  for (std::size_t l = 0; l < model.config().n_layer; ++l) {
    const auto& qkv = plain_acts.layers[l].qkv;  // (T, 3C)
    for (std::size_t j = 0; j < T; ++j) {
      for (std::size_t i = 0; i < C; ++i) {
        ASSERT_EQ(cache.k(l, j, i), qkv(j, C + i)) << "layer " << l << " key " << j;
        ASSERT_EQ(cache.v(l, j, i), qkv(j, 2 * C + i)) << "layer " << l << " value " << j;
      }
    }
  }
}

TEST_F(TinyCache, ForwardWithCacheRejectsBadStartAndOverlongInput) {
  const std::span<const TokenId> tokens(golden.tokens);
  // start must equal what the cache holds
  EXPECT_THROW(tang::forward_with_cache(model, tokens.first(2), 1, cache, acts),
               std::invalid_argument);
  tang::forward_with_cache(model, tokens.first(4), 0, cache, acts);
  EXPECT_THROW(tang::forward_with_cache(model, tokens.subspan(4, 1), 0, cache, acts),
               std::invalid_argument);
  EXPECT_THROW(tang::forward_with_cache(model, tokens.subspan(4, 1), 5, cache, acts),
               std::invalid_argument);
  EXPECT_EQ(cache.length, 4u) << "a rejected call must leave the cache alone";

  // no tokens at all; an id the model does not have
  EXPECT_THROW(tang::forward_with_cache(model, tokens.first(0), 4, cache, acts),
               std::invalid_argument);
  const std::vector<TokenId> bad_id = {static_cast<TokenId>(V)};
  EXPECT_THROW(tang::forward_with_cache(model, bad_id, 4, cache, acts), std::invalid_argument);
  EXPECT_EQ(cache.length, 4u);

  // more than the context holds, from scratch and on top of the cache
  const std::vector<TokenId> long_text(model.config().block_size + 1, 1);
  cache.length = 0;
  EXPECT_THROW(tang::forward_with_cache(model, long_text, 0, cache, acts), std::invalid_argument);
  EXPECT_EQ(cache.length, 0u);
  tang::forward_with_cache(model, tokens.first(10), 0, cache, acts);
  EXPECT_THROW(tang::forward_with_cache(model, std::span(long_text).first(7), 10, cache, acts),
               std::invalid_argument);
  EXPECT_EQ(cache.length, 10u);

  // exactly full is fine; one more is not
  const auto full = tang::forward_with_cache(model, std::span(long_text).first(6), 10, cache, acts);
  EXPECT_EQ(full.shape(0), 1u);
  EXPECT_EQ(cache.length, model.config().block_size);
  EXPECT_THROW(tang::forward_with_cache(model, tokens.first(1), cache.length, cache, acts),
               std::invalid_argument);
}

TEST(KVCacheSize, TwoVectorsPerLayerPerPosition) {
  tang::GPTConfig config;  // the course's model: 4 layers, 128 dims
  config.vocab_size = 100;
  EXPECT_EQ(tang::kv_cache_bytes_per_position(config), 2u * 4 * 128 * 4);
  const tang::KVCache cache(config);
  EXPECT_EQ(cache.length, 0u);
  EXPECT_EQ(cache.k.shape(0), 4u);
  EXPECT_EQ(cache.k.shape(1), 128u);
  EXPECT_EQ(cache.k.shape(2), 128u);
  EXPECT_EQ(cache.v.shape(), cache.k.shape());
}

// --- CachedPredictor: the same logits as Recompute ------------------------------------

TEST_F(TinyCache, CachedPredictorGivesTheSameBitsAsRecomputeAlsoPastTheContext) {
  const std::size_t block = model.config().block_size;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    tang::CachedPredictor with(model);
    tang::Recompute without(model);
    std::vector<TokenId> context = {0};
    tang::Rng rng(seed);
    while (context.size() < 41) {  // 40 new characters: well past the 16 of the context
      const auto a = copy_of(with.next_logits(context));
      const auto b = copy_of(without.next_logits(context));
      ASSERT_EQ(a.size(), V);
      EXPECT_EQ(bit_difference(a, b), "") << "context of " << context.size();
      // Within the context the cache grows by one position a step; past it every
      // position shifts, and the cache is rebuilt from the window of block_size.
      EXPECT_EQ(with.cache().length, std::min(context.size(), block));
      context.push_back(static_cast<TokenId>(rng.below(V)));
    }
  }
}

TEST_F(TinyCache, CachedPredictorNoticesAChangedContext) {
  tang::CachedPredictor with(model);
  tang::Recompute without(model);
  const std::vector<std::vector<TokenId>> contexts = {
      {0, 1, 2, 3}, {0, 1, 2, 3, 4},
      {0, 1, 5},  // not an extension: must start over
      {0, 1, 5},  // the same context twice
      {7},          {7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8},
      {2}};
  for (const auto& context : contexts) {
    const auto a = copy_of(with.next_logits(context));
    const auto b = copy_of(without.next_logits(context));
    EXPECT_EQ(bit_difference(a, b), "") << "context of " << context.size();
  }
  EXPECT_THROW(with.next_logits(std::vector<TokenId>{}), std::invalid_argument);
}

// --- generation: same seed, same characters with and without the cache ----------------

std::vector<TokenId> write_with(tang::Predictor& predictor, const tang::SamplingSettings& s,
                                std::uint64_t seed, std::size_t n) {
  tang::Rng rng(seed);
  std::vector<TokenId> context = {0};
  return tang::write(predictor, context, tang::sampling_picker(s), rng, n, std::nullopt);
}

TEST_F(TinyCache, GenerationIsTheSameWithAndWithoutCachePastTheContext) {
  const tang::SamplingSettings settings[] = {
      {1.0f, 0, 1.0f}, {1.5f, 3, 0.9f}, {0.7f, 0, 0.8f}, {0.0f, 0, 1.0f}};
  for (const auto& s : settings) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      tang::CachedPredictor with(model);
      tang::Recompute without(model);
      const auto a = write_with(with, s, seed, 40);
      const auto b = write_with(without, s, seed, 40);
      EXPECT_EQ(a.size(), 40u);
      EXPECT_EQ(a, b) << "seed " << seed << ", T " << s.temperature;
    }
  }
  // The sampler does depend on the seed (else the check above would prove little).
  tang::Recompute predictor(model);
  EXPECT_NE(write_with(predictor, {1.5f, 0, 1.0f}, 1, 40),
            write_with(predictor, {1.5f, 0, 1.0f}, 2, 40));
}

// --- a model of the course's shape, random weights: the cache over a whole context ----

TEST(RandomModel, CacheGivesThePlainBitsOverTheWholeContext) {
  const tang::GPT model = tang::testing::random_model(7);
  const auto& config = model.config();
  tang::Rng rng(8);
  std::vector<TokenId> tokens(config.block_size);
  for (TokenId& t : tokens) t = static_cast<TokenId>(rng.below(config.vocab_size));

  tang::KVCache cache(config);
  tang::Activations acts(config), plain(config, 1, tang::Keep::kEverything);
  const auto all = copy_of(tang::forward(model, tokens, plain, LogitsFor::kAllPositions));
  for (std::size_t i = 0; i < config.block_size; ++i) {
    const auto step =
        copy_of(tang::forward_with_cache(model, std::span(tokens).subspan(i, 1), i, cache, acts));
    const std::span<const float> row(all.data() + i * config.vocab_size, config.vocab_size);
    ASSERT_EQ(bit_difference(step, row), "") << "step " << i;
  }
  EXPECT_EQ(cache.length, config.block_size);
  EXPECT_THROW(
      tang::forward_with_cache(model, std::span(tokens).first(1), config.block_size, cache, acts),
      std::invalid_argument);
}

// The shipped model, when there is one: 120 characters, same text both ways (the check
// of lesson 06). Skipped until data/tang_gpt.safetensors exists.
TEST(ShippedModel, SameTextWithAndWithoutCache) {
  const std::string path = tang::default_checkpoint_path();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
  const tang::GPT model = tang::load_checkpoint(path);
  auto run = [&](tang::Predictor& predictor) {
    tang::Rng rng(2024);
    std::vector<TokenId> context = model.tokenizer().encode("\n床前明月光，");
    tang::write(predictor, context, tang::sampling_picker({1.0f, 0, 1.0f}), rng, 120, std::nullopt);
    return model.tokenizer().decode(context);
  };
  tang::CachedPredictor with(model);
  tang::Recompute without(model);
  const std::string a = run(with), b = run(without);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.rfind("\n床前明月光，", 0), 0u);
}

}  // namespace
