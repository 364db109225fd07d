// batched_test: lesson 08's batched decoding (lessons/08_many_poems/).
//
// lesson 06's cached forward over B caches (one character each) against the
// same forward for one text, row by row and bit for bit, for poems at different
// positions, with lesson 08's fp32 StoredWeights; write_batched against the poems
// written one at a time, with and without a shared opening; the shared
// opening's cache against prefilling each poem; the quality measure of the
// fp32 weights against themselves. On the shipped model (skipped when missing).

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "08_many_poems/batch_writer.hpp"
#include "08_many_poems/big_model.hpp"
#include "08_many_poems/weight_quality.hpp"
#include "checkpoint.hpp"
#include "generate.hpp"
#include "shipped_model.hpp"

namespace {

using namespace tang;

TEST(ForwardOverCaches, EachRowIsTheTextsOwnCachedStepBitForBit) {
  NEED_SHIPPED_MODEL();
  const Tokenizer& tok = model.tokenizer();
  const std::vector<std::string> texts = {"\n春风", "\n白日依山尽，黄河", "\n月",
                                          "\n山中相送罢，日暮掩柴"};
  const StoredWeights fp32(model, WeightFormat::kFp32);
  std::vector<std::unique_ptr<KVCache>> ours, theirs;
  std::vector<TokenId> last;
  Activations acts(model.config());
  std::vector<std::vector<float>> expected;
  for (const std::string& text : texts) {
    const std::vector<TokenId> ids = tok.encode(text);
    ours.push_back(std::make_unique<KVCache>(model.config()));
    theirs.push_back(std::make_unique<KVCache>(model.config()));
    forward_with_cache(model, std::span(ids).first(ids.size() - 1), 0, *ours.back(), acts);
    const View<2> z =
        forward_with_cache(model, ids, 0, *theirs.back(), acts);  // the whole text alone
    expected.emplace_back(z.data(), z.data() + z.size());
    last.push_back(ids.back());
  }
  Activations batch = step_activations(model.config(), 8);
  std::vector<KVCache*> caches;
  for (auto& c : ours) caches.push_back(c.get());
  const View<2> z = forward_with_cache(model, fp32, last, caches, batch, LogitsFor::kLastPosition);
  const std::size_t V = model.config().vocab_size;
  for (std::size_t b = 0; b < texts.size(); ++b) {
    EXPECT_EQ(std::memcmp(z.data() + b * V, expected[b].data(), V * sizeof(float)), 0) << texts[b];
    EXPECT_EQ(caches[b]->length, tok.encode(texts[b]).size());
  }
  // nine rows do not fit activations for eight
  EXPECT_THROW(
      forward_with_cache(model, fp32, std::vector<TokenId>(9, 1),
                         std::vector<KVCache*>(9, caches[0]), batch, LogitsFor::kLastPosition),
      std::invalid_argument);
  // a full cache has no room for one more position
  KVCache full(model.config());
  full.length = model.config().block_size;
  const std::vector<KVCache*> with_full = {caches[0], &full};
  EXPECT_THROW(forward_with_cache(model, fp32, std::vector<TokenId>(2, 1), with_full, batch,
                                  LogitsFor::kLastPosition),
               std::invalid_argument);
}

std::vector<std::string> one_at_a_time(const GPT& model, const std::vector<std::uint64_t>& seeds,
                                       const std::string& opening, const SamplingSettings& s,
                                       std::size_t max_chars) {
  std::vector<std::string> poems;
  for (std::uint64_t seed : seeds) {
    CachedPredictor predictor(model);
    Rng rng(seed);
    poems.push_back(
        write_poem(predictor, model.tokenizer(), opening, sampling_picker(s), rng, max_chars));
  }
  return poems;
}

TEST(WriteBatched, ThePoemsOfABatchAreThePoemsWrittenAlone) {
  NEED_SHIPPED_MODEL();
  const StoredWeights fp32(model, WeightFormat::kFp32);
  const SamplingSettings s{0.8f, 20, 1.0f};
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t i = 1; i <= 16; ++i) seeds.push_back(i);
  const std::vector<std::string> alone = one_at_a_time(model, seeds, "", s, 64);
  for (std::size_t B : {16u, 5u, 1u}) {
    const BatchedPoems r = write_batched(model, fp32, seeds, "", s, 64, B);
    EXPECT_EQ(r.poems, alone) << "batch " << B;
  }
}

TEST(WriteBatched, ASharedOpeningPrefilledOnceWritesWhatEachPrefillWrites) {
  NEED_SHIPPED_MODEL();
  const StoredWeights fp32(model, WeightFormat::kFp32);
  const SamplingSettings s{0.8f, 20, 1.0f};
  const std::vector<std::uint64_t> seeds = {7, 8, 9, 10, 11, 12};
  const std::string opening = "白日依山尽，黄河入海流。";
  const BatchedPoems r = write_batched(model, fp32, seeds, opening, s, 40, 4);
  EXPECT_EQ(r.poems, one_at_a_time(model, seeds, opening, s, 40));
  for (const std::string& poem : r.poems) EXPECT_EQ(poem.rfind(opening, 0), 0u) << poem;
}

TEST(SharedOpening, ACopiedCacheGivesTheSameLogitsAsItsOwnPrefill) {
  NEED_SHIPPED_MODEL();
  const std::vector<TokenId> ids = model.tokenizer().encode("\n白日依山尽，黄河入海流。");
  Activations acts(model.config());
  KVCache shared(model.config());
  forward_with_cache(model, ids, 0, shared, acts);
  const StoredWeights fp32(model, WeightFormat::kFp32);
  Activations scratch = step_activations(model.config(), 4);
  std::vector<KVCache> copies(3, shared), own;
  std::vector<KVCache*> caches;
  for (int b = 0; b < 3; ++b) {
    own.emplace_back(model.config());
    forward_with_cache(model, ids, 0, own.back(), acts);
  }
  for (auto& c : copies) caches.push_back(&c);
  const std::vector<TokenId> next = {1, 2, 3};
  const View<2> from_copies =
      forward_with_cache(model, fp32, next, caches, scratch, LogitsFor::kLastPosition);
  const std::vector<float> a(from_copies.data(), from_copies.data() + from_copies.size());
  caches.clear();
  for (auto& c : own) caches.push_back(&c);
  const View<2> from_own =
      forward_with_cache(model, fp32, next, caches, scratch, LogitsFor::kLastPosition);
  EXPECT_EQ(std::memcmp(a.data(), from_own.data(), a.size() * sizeof(float)), 0);
}

// Section 8's timed step (big_model.hpp), here on our model: it runs, and refuses what
// cannot run.
TEST(BatchedStep, RunsAStepOfBTextsAndRefusesAFullCache) {
  NEED_SHIPPED_MODEL();
  const StoredWeights int8(model, WeightFormat::kInt8);
  const SamplingSettings s{0.8f, 20, 1.0f};
  EXPECT_GT(time_batched_step_ms(model, int8, 3, 10, 2, s), 0.0);
  EXPECT_THROW(BatchedStep(model, int8, 2, model.config().block_size, s), std::invalid_argument);
  EXPECT_THROW(time_batched_step_ms(model, int8, 2, 10, 0, s), std::invalid_argument);
}

TEST(WeightQuality, Fp32AgainstItselfIsExact) {
  NEED_SHIPPED_MODEL();
  const StoredWeights fp32(model, WeightFormat::kFp32);
  const auto poems = heldout_poems(model, std::string(TANG_DATA_DIR) + "/tang_poems.txt", 10);
  ASSERT_EQ(poems.size(), 10u);
  const WeightQuality q = compare_with_fp32(model, fp32, fp32, poems, 4);
  EXPECT_GT(q.positions, 100u);
  EXPECT_EQ(q.loss, q.fp32_loss);
  EXPECT_EQ(q.kl, 0.0);
  EXPECT_EQ(q.top1, 1.0);
  EXPECT_GT(q.loss, 2.0);  // a real model of this size: about 4.5 nats per character
  EXPECT_LT(q.loss, 7.0);
}

}  // namespace
