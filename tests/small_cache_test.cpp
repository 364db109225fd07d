// small_cache_test: lesson 10's cached step of every attention variant against
// the uncached model (common/gpt.hpp), past the context too; the variants'
// checkpoints; and the older caches refusing what they cannot hold.
#include "10_cache_size/small_cache.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "10_cache_size/long_context.hpp"
#include "10_cache_size/variant_runs.hpp"
#include "10_cache_size/variant_step_cost.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "tiny_golden.hpp"

namespace {

using tang::LogitsFor;
using tang::TokenId;

struct Variant {
  const char* name;
  std::size_t kv_heads, kv_latent;
  bool same_bits;         // the cached step adds in the uncached model's order
  std::size_t heads = 4;  // 8: groups of 4, so h / KVH and h / (NH / KVH) differ
};
void PrintTo(const Variant& v, std::ostream* os) {
  *os << v.name;
}

// tiny_golden.hpp's random model (4 layers, 32 dims, context 64) with random
// weights, `v.heads` heads sharing keys and values as `v` says.
tang::GPT random_variant(const Variant& v, std::uint64_t seed, std::size_t block_size = 64) {
  const tang::GPT base = tang::testing::random_model(seed, 50, block_size);
  tang::GPTConfig config = base.config();
  config.n_head = v.heads;
  config.n_kv_head = v.kv_heads;
  config.kv_latent = v.kv_latent;
  tang::Rng rng(seed);
  tang::Tensor<1> parameters = tang::Tensor<1>::from_shape({tang::parameter_count(config)});
  for (float& p : parameters) p = 0.2f * rng.normal();
  return tang::GPT(config, base.tokenizer(), std::move(parameters));
}

float largest_difference(std::span<const float> a, std::span<const float> b) {
  float worst = 0.0f;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

class SmallCache : public ::testing::TestWithParam<Variant> {};

// Every step, one character at a time, against the uncached forward's row.
TEST_P(SmallCache, EveryStepGivesTheUncachedLogits) {
  const Variant v = GetParam();
  const tang::GPT model = random_variant(v, 7);
  const auto& config = model.config();
  tang::Rng rng(8);
  std::vector<TokenId> tokens(config.block_size);
  for (TokenId& t : tokens) t = static_cast<TokenId>(rng.below(config.vocab_size));
  tang::Activations plain(config, 1, tang::Keep::kEverything), acts(config);
  const auto all = tang::forward(model, tokens, plain, LogitsFor::kAllPositions);
  tang::SmallCache cache(config);
  for (std::size_t i = 0; i < config.block_size; ++i) {
    const auto step = tang::forward_with_cache(model, std::span(tokens).subspan(i, 1), cache, acts);
    const std::span<const float> row(all.data() + i * config.vocab_size, config.vocab_size);
    const std::span<const float> got(step.data(), step.size());
    if (v.same_bits) {
      ASSERT_TRUE(std::equal(got.begin(), got.end(), row.begin())) << "step " << i;
    } else {
      ASSERT_LE(largest_difference(got, row), 1e-4f) << "step " << i;
    }
  }
  EXPECT_EQ(cache.length, config.block_size);
  EXPECT_THROW(tang::forward_with_cache(model, std::span(tokens).first(1), cache, acts),
               std::invalid_argument);
}

// A prefill of many characters, then steps: the same as one at a time.
TEST_P(SmallCache, PrefillThenStepsGivesTheUncachedLogits) {
  const Variant v = GetParam();
  const tang::GPT model = random_variant(v, 9);
  const auto& config = model.config();
  std::vector<TokenId> tokens;
  for (std::size_t i = 0; i < 40; ++i) tokens.push_back(static_cast<TokenId>((7 * i + 3) % 50));
  tang::Activations plain(config, 1, tang::Keep::kEverything), acts(config);
  const auto all = tang::forward(model, tokens, plain, LogitsFor::kAllPositions);
  tang::SmallCache cache(config);
  tang::forward_with_cache(model, std::span(tokens).first(30), cache, acts);
  for (std::size_t i = 30; i < tokens.size(); ++i) {
    const auto step = tang::forward_with_cache(model, std::span(tokens).subspan(i, 1), cache, acts);
    const std::span<const float> row(all.data() + i * config.vocab_size, config.vocab_size);
    EXPECT_LE(largest_difference({step.data(), step.size()}, row), v.same_bits ? 0.0f : 1e-4f)
        << "step " << i;
  }
}

// Writing past the context: the window slides, the predictor rebuilds its
// cache, and the text is the uncached model's, character for character.
TEST_P(SmallCache, SameGreedyTextAsTheUncachedModelPastTheContext) {
  const Variant v = GetParam();
  const tang::GPT model = random_variant(v, 11, 24);
  auto run = [&](tang::Predictor& predictor) {
    tang::Rng rng(5);
    std::vector<TokenId> context = {0, 1, 2};
    tang::write(predictor, context, tang::sampling_picker({1.0f, 1, 1.0f}), rng, 60, std::nullopt);
    return context;
  };
  tang::SmallCachePredictor cached(model);
  tang::Recompute uncached(model);
  const auto a = run(cached), b = run(uncached);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.size(), model.config().block_size) << "the text went past the context";
}

INSTANTIATE_TEST_SUITE_P(Attention, SmallCache,
                         ::testing::Values(Variant{"multi_head", 0, 0, true},
                                           Variant{"grouped_query", 2, 0, true},
                                           Variant{"grouped_query_8_heads", 2, 0, true, 8},
                                           Variant{"multi_query", 1, 0, true},
                                           Variant{"latent", 0, 12, false}),
                         [](const auto& info) { return std::string(info.param.name); });

// B texts in one step, each at its own length: every text's logits are the ones it
// gets alone (the batched path lesson 10's long-context rows time).
TEST_P(SmallCache, BatchedTextsGiveTheirOwnLogits) {
  const Variant v = GetParam();
  const tang::GPT model = random_variant(v, 17);
  const auto& config = model.config();
  const std::size_t lengths[] = {5, 17, 1};
  std::vector<tang::SmallCache> alone, together;
  std::vector<tang::SmallCache*> pointers;
  tang::Activations acts(config), batch = tang::step_activations(config, 3);
  std::vector<TokenId> next;
  std::vector<std::vector<float>> expected;
  for (std::size_t b = 0; b < 3; ++b) {
    std::vector<TokenId> text;
    for (std::size_t i = 0; i <= lengths[b]; ++i)
      text.push_back(static_cast<TokenId>((13 * i + 7 * b + 2) % 50));
    alone.emplace_back(config);
    together.emplace_back(config);
    tang::forward_with_cache(model, std::span(text).first(lengths[b]), alone.back(), acts);
    tang::forward_with_cache(model, std::span(text).first(lengths[b]), together.back(), acts);
    const auto step = tang::forward_with_cache(model, std::span(text).last(1), alone.back(), acts);
    expected.emplace_back(step.data(), step.data() + step.size());
    next.push_back(text.back());
  }
  for (tang::SmallCache& cache : together) pointers.push_back(&cache);
  const auto all = tang::forward_with_cache(model, tang::ModelMatrices<>(model), next, pointers,
                                            batch, LogitsFor::kLastPosition);  // (3, V)
  for (std::size_t b = 0; b < 3; ++b) {
    const std::span<const float> row(all.data() + b * config.vocab_size, config.vocab_size);
    EXPECT_TRUE(std::equal(row.begin(), row.end(), expected[b].begin())) << "text " << b;
    EXPECT_EQ(together[b].length, lengths[b] + 1);
  }
}

// The long-context rows' model and timing, on a context small enough for a test.
TEST(LongContext, ShapesKeepTheShareAndTheStepRuns) {
  tang::GPTConfig ours{50, 64, 4, 4, 32};
  ours.n_kv_head = 2;
  EXPECT_EQ(tang::long_context_shape(ours, 9).kv_heads(), 6u);
  ours.n_kv_head = 1;
  EXPECT_EQ(tang::long_context_shape(ours, 9).kv_heads(), 1u);
  ours.n_kv_head = 0;
  ours.kv_latent = 8;
  const tang::GPTConfig big = tang::long_context_shape(ours, 9);
  EXPECT_EQ(big.kv_latent, 192u) << "a quarter of the width, as ours";
  EXPECT_EQ(big.n_layer, 12u);
  EXPECT_EQ(big.block_size, 9u);
  const tang::GPT model =
      tang::initialised_model(big, tang::testing::random_model(1).tokenizer(), 3);
  EXPECT_GT(tang::time_small_cache_step_ms(model, 2, 8, 1), 0.0);
  EXPECT_THROW(tang::time_small_cache_step_ms(model, 2, 9, 1), std::invalid_argument)
      << "no room for one more position";
}

// For a multi-head model the small cache is lesson 06's, bit for bit.
TEST(SmallCacheMultiHead, SameBitsAsLessonSixCache) {
  const tang::GPT model = tang::testing::random_model(3);
  const auto& config = model.config();
  std::vector<TokenId> tokens;
  for (std::size_t i = 0; i < config.block_size; ++i)
    tokens.push_back(static_cast<TokenId>((11 * i + 1) % 50));
  tang::KVCache kv(config);
  tang::SmallCache small(config);
  tang::Activations a(config), b(config);
  for (std::size_t i = 0; i < config.block_size; ++i) {
    const auto x = tang::forward_with_cache(model, std::span(tokens).subspan(i, 1), i, kv, a);
    const auto y = tang::forward_with_cache(model, std::span(tokens).subspan(i, 1), small, b);
    ASSERT_TRUE(std::equal(x.data(), x.data() + x.size(), y.data())) << "step " << i;
  }
  EXPECT_EQ(tang::small_cache_bytes_per_position(config),
            tang::kv_cache_bytes_per_position(config));
}

// The cache a variant keeps per position and layer.
TEST(SmallCacheSize, GroupedAndLatentKeepLess) {
  tang::GPTConfig c{7129, 128, 4, 4, 128};
  EXPECT_EQ(c.cache_width(), 256u);
  c.n_kv_head = 2;
  EXPECT_EQ(c.cache_width(), 128u);
  c.n_kv_head = 1;
  EXPECT_EQ(c.cache_width(), 64u);
  EXPECT_EQ(tang::small_cache_bytes_per_position(c), 4u * 64 * 4);
  c.n_kv_head = 0;
  c.kv_latent = 32;
  EXPECT_EQ(c.cache_width(), 32u);
  const tang::SmallCache cache(c);
  EXPECT_EQ(cache.layers.size(), 4u * 128 * 32);
}

// Each variant's checkpoint records it, loads back the same, and a file whose
// tensors do not match its own description is refused.
TEST_P(SmallCache, CheckpointRecordsTheVariant) {
  const Variant v = GetParam();
  const tang::GPT model = random_variant(v, 13);
  tang::SafetensorsFile file = tang::model_to_safetensors(model);
  const tang::GPT back = tang::model_from_safetensors(file, "memory");
  EXPECT_EQ(back.config().describe(), model.config().describe());
  EXPECT_EQ(back.config().attention(), model.config().attention());
  EXPECT_TRUE(
      std::equal(back.parameters().begin(), back.parameters().end(), model.parameters().begin()));
  // the metadata claims another variant than the tensors hold
  if (model.config().attention() == tang::Attention::kLatent) {
    file.metadata["kv_latent"] = "16";
  } else {
    file.metadata["n_kv_head"] = model.config().kv_heads() == 1 ? "2" : "1";
  }
  try {
    (void)tang::model_from_safetensors(file, "memory");
    FAIL() << "a file whose shapes do not match its metadata was loaded";
  } catch (const tang::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("needs"), std::string::npos) << e.what();
  }
}

// Lessons 06-09's cache keeps a key and a value per head: it refuses the others
// with one line naming the variant and the lesson that runs it.
TEST(SmallCacheVariants, LessonSixCacheRefusesThem) {
  const tang::GPT model = random_variant({"multi_query", 1, 0, true}, 3);
  try {
    tang::KVCache cache(model.config());
    FAIL() << "lesson 06's cache took a multi-query model";
  } catch (const tang::UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("multi-query"), std::string::npos) << what;
    EXPECT_NE(what.find("lesson_10_cache_size"), std::string::npos) << what;
  }
}

}  // namespace

namespace {

// A machine that reads 10 GB/s at every size and multiplies at 1 GFLOP/s: round numbers.
tang::MachineProfile round_profile() {
  tang::MachineProfile p;
  p.read_gb_per_s = {{1024, 10.0}, {std::size_t{1} << 34, 10.0}};
  p.loop_gflops[tang::kPlainFp32Loop] = {{128, 1, 1.0}, {128, 128, 1.0}};
  p.attention_ns = 1.0;
  p.gelu_ns = p.layernorm_ns = p.sampling_ns = 0.0;
  return p;
}

// Lesson 10's cost model: what each variant reads and multiplies in a cached step.
TEST(VariantStepCost, MultiHeadIsLessonSixPrediction) {
  const tang::GPTConfig c{7129, 128, 4, 4, 128};
  const tang::MachineProfile p = round_profile();
  const tang::VariantStepCost v = tang::predict_variant_step(c, 4, 63, p);
  const tang::StepCost six =
      tang::predict_step(c, tang::batch_step(4, 63), p, tang::kPlainFp32Loop, 4.0);
  EXPECT_DOUBLE_EQ(v.weight_bytes, six.weight_bytes);
  EXPECT_DOUBLE_EQ(v.matrices_ms(), six.matrices_ms());
  EXPECT_DOUBLE_EQ(v.cache_bytes, six.kv_bytes) << "4 texts x 64 keys x 2C floats x 4 layers";
  EXPECT_DOUBLE_EQ(v.attention_compute_ms, six.attention_ms);
}

TEST(VariantStepCost, SharingShrinksTheProjectionAndTheCacheRead) {
  tang::GPTConfig c{7129, 128, 4, 4, 128};
  const tang::MachineProfile p = round_profile();
  const double keys = 2.0 * 100;  // 2 texts, 99 cached + 1 new each
  c.n_kv_head = 1;
  tang::VariantStepCost v = tang::predict_variant_step(c, 2, 99, p);
  EXPECT_EQ(v.matrices.front().name, "qkv");
  EXPECT_EQ(v.matrices.front().rows, 128u + 2 * 32);
  EXPECT_DOUBLE_EQ(v.cache_bytes, keys * 2 * 32 * 4 * 4);
  EXPECT_DOUBLE_EQ(v.attention_compute_ms, keys * 128 * 4 * 1e-6) << "every query head still reads";
  c.n_kv_head = 0;
  c.kv_latent = 32;
  v = tang::predict_variant_step(c, 2, 99, p);
  EXPECT_EQ(v.matrices.front().rows, 128u + 32);
  ASSERT_EQ(v.matrices.back().name, "kv_up");
  EXPECT_DOUBLE_EQ(v.matrices.back().bytes, 256.0 * 32 * 4 * 4);
  EXPECT_DOUBLE_EQ(v.matrices.back().flops, 2.0 * 256 * 32 * 4 * 2) << "two rows through it";
  EXPECT_DOUBLE_EQ(v.cache_bytes, keys * 32 * 4 * 4);
  EXPECT_DOUBLE_EQ(v.cache_read_ms, v.cache_bytes / 10e6);
}

}  // namespace

// Lesson 10 pairs its runs by seed: a model whose metadata names other seeds than
// its file name's (or none, as before --data-seed) is refused with one line.
TEST(VariantRuns, AModelTrainedWithOtherSeedsIsRefused) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tang_small_cache_test_variants";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const tang::GPT model = random_variant({"multi_head", 0, 0, true}, 5);
  const tang::VariantRun first = tang::variant_runs().front();  // multi_head, seed 1
  const std::string data_seed = std::to_string(tang::kVariantDataSeed);
  for (const tang::VariantRun& run : tang::variant_runs()) {  // all twelve, with the right notes
    tang::save_checkpoint((dir / (run.name() + ".safetensors")).string(), model,
                          {{"seed", std::to_string(run.seed)}, {"data_seed", data_seed}});
  }
  EXPECT_EQ(tang::missing_variants(dir.string()), "");
  EXPECT_NO_THROW(tang::load_variant(dir.string(), first));
  const std::string path = (dir / (first.name() + ".safetensors")).string();
  for (const auto& notes : std::vector<std::map<std::string, std::string>>{
           {{"seed", "1"}, {"data_seed", "init"}},  // its batches followed the initialisation
           {{"seed", "2"}, {"data_seed", data_seed}},
           {}}) {
    tang::save_checkpoint(path, model, notes);
    try {
      tang::load_variant(dir.string(), first);
      ADD_FAILURE() << "a model without seed 1 and data seed " << data_seed << " was taken";
    } catch (const tang::UserError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("multi_head_seed1.safetensors was trained with"), std::string::npos)
          << what;
      EXPECT_NE(what.find("scripts/train_variants.sh"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  fs::remove(dir / "latent_seed3.safetensors");
  EXPECT_NE(tang::missing_variants(dir.string()).find("has no latent_seed3.safetensors"),
            std::string::npos);
  fs::remove_all(dir);
}
