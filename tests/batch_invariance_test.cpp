// batch_invariance_test: a row's logits must not depend on the batch it is in.
//
// Lesson 06's cached forward over B texts, each one new character after its own
// cache (of a different length), the text we watch in a different place of the
// batch each time, beside different neighbours. With a batch-invariant product
// (fast::few_rows_matmul: every row summed in the same order whatever N is) the
// watched row's logits are the bits it gets alone, at every B from 1 to 64. A
// product that changes kernels with the number of rows (fast::matmul_forward, the
// trainer's: the lesson's loop for one row, few_rows_matmul up to 32, OpenBLAS's
// sgemm past it) changes its sums with B: the same check finds it (the check can
// fail). Uses the shipped model.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "11_server/step_kernels.hpp"
#include "fast/fast.hpp"
#include "rng.hpp"
#include "shipped_model.hpp"

namespace {

using tang::TokenId;

// A text: its own cache, filled alone with `held` random characters, and its next one.
struct Text {
  std::unique_ptr<tang::KVCache> cache;
  TokenId next = 0;
};

Text make_text(const tang::GPT& model, const tang::KernelMatrices& m, std::size_t held,
               tang::Rng& rng) {
  const std::size_t V = model.config().vocab_size;
  Text t{std::make_unique<tang::KVCache>(model.config()), TokenId(rng.next_u64() % V)};
  std::vector<TokenId> opening(held);
  for (TokenId& id : opening) id = TokenId(rng.next_u64() % V);
  tang::Activations acts = tang::step_activations(model.config(), held);
  tang::KVCache* const one[] = {t.cache.get()};
  tang::forward_with_cache(model, m, opening, one, acts, tang::LogitsFor::kLastPosition);
  return t;
}

// The row of logits of texts[0] in a batch of B: texts[0] at place `at`, the
// others B - 1 of texts[1..], chosen at random. Every cache is put back as it
// was after (each batch extends the same caches again).
std::vector<float> row_in_batch(const tang::GPT& model, const tang::KernelMatrices& m,
                                std::vector<Text>& texts, std::size_t B, std::size_t at,
                                tang::Rng& rng) {
  std::vector<std::size_t> chosen;  // (B) indices into texts, each once
  for (std::size_t i = 1; i < texts.size(); ++i) chosen.push_back(i);
  for (std::size_t i = chosen.size(); i > 1; --i)
    std::swap(chosen[i - 1], chosen[rng.next_u64() % i]);
  chosen.resize(B - 1);
  chosen.insert(chosen.begin() + long(at), 0);
  std::vector<tang::KVCache*> caches;  // (B)
  std::vector<TokenId> tokens;         // (B)
  std::vector<std::size_t> held;       // (B)
  for (const std::size_t i : chosen) {
    caches.push_back(texts[i].cache.get());
    tokens.push_back(texts[i].next);
    held.push_back(texts[i].cache->length);
  }
  tang::Activations acts = tang::step_activations(model.config(), B);
  const tang::View<2> logits =
      tang::forward_with_cache(model, m, tokens, caches, acts, tang::LogitsFor::kLastPosition);
  for (std::size_t b = 0; b < B; ++b) caches[b]->length = held[b];
  const float* row = logits.data() + at * model.config().vocab_size;
  return {row, row + model.config().vocab_size};
}

// The batch sizes from 1 to 64 at which the watched row's bits differ from alone.
std::vector<std::size_t> batches_that_change_the_row(const tang::GPT& model,
                                                     tang::MatmulKernel kernel) {
  const tang::KernelMatrices m(model, kernel);
  tang::Rng rng(2025);
  std::vector<Text> texts;  // the watched one (37 positions held), then 64 of 1 to 100
  texts.push_back(make_text(model, m, 37, rng));
  for (int i = 0; i < 64; ++i) texts.push_back(make_text(model, m, 1 + rng.next_u64() % 100, rng));
  const std::vector<float> alone = row_in_batch(model, m, texts, 1, 0, rng);
  std::vector<std::size_t> changed;
  for (std::size_t B = 1; B <= 64; ++B) {
    const std::vector<float> row = row_in_batch(model, m, texts, B, rng.next_u64() % B, rng);
    if (std::memcmp(row.data(), alone.data(), row.size() * sizeof(float)) != 0)
      changed.push_back(B);
  }
  return changed;
}

TEST(BatchInvariance, TheInvariantProductGivesARowTheSameBitsInEveryBatch) {
  NEED_SHIPPED_MODEL();
  EXPECT_EQ(batches_that_change_the_row(model, tang::fast::few_rows_matmul),
            std::vector<std::size_t>{});
}

TEST(BatchInvariance, AProductThatChangesKernelsWithBChangesARow) {
  NEED_SHIPPED_MODEL();
  EXPECT_FALSE(batches_that_change_the_row(model, tang::fast::matmul_forward).empty())
      << "fast::matmul_forward sums a row another way at 1, 2..32 and 33..64 rows";
}

}  // namespace
