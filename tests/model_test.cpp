// model_test: the plain GPT forward pass (common/gpt.hpp) against an independent
// reference, causality, batches, the generation loop's Recompute, and what forward refuses.
//
// The tiny golden model and its float64 NumPy logits: tiny_golden.hpp. Lesson 06's
// KV cache is checked against this forward pass in kv_cache_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "generate.hpp"
#include "gpt.hpp"
#include "ops.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "tiny_golden.hpp"

namespace {

using tang::LogitsFor;
using tang::TokenId;
using tang::testing::bit_difference;
using tang::testing::copy_of;
using tang::testing::kTolerance;
using tang::testing::relative_error;

class TinyModel : public ::testing::Test {
 protected:
  TinyModel()
      : model(tang::testing::tiny_model()),
        golden(tang::testing::load_golden()),
        V(model.config().vocab_size),
        T(golden.tokens.size()),
        everything(model.config(), 1, tang::Keep::kEverything),
        last(model.config()) {}

  // All positions' logits of `tokens` read at once.
  std::vector<float> all_positions(std::span<const TokenId> tokens) {
    return copy_of(tang::forward(model, tokens, everything, LogitsFor::kAllPositions));
  }
  // The last position's logits of `tokens`.
  std::vector<float> last_position(std::span<const TokenId> tokens) {
    return copy_of(tang::forward(model, tokens, last, LogitsFor::kLastPosition));
  }

  const tang::GPT& model;
  tang::testing::Golden golden;
  std::size_t V, T;
  tang::Activations everything, last;
};

// --- (a) the whole sequence against the NumPy reference ------------------------

TEST_F(TinyModel, GoldenFilesDescribeTheModel) {
  EXPECT_EQ(model.config().n_layer, 2u);
  EXPECT_EQ(model.config().n_head, 2u);
  EXPECT_EQ(model.config().n_embd, 8u);
  EXPECT_EQ(model.config().block_size, 16u);
  EXPECT_EQ(V, 11u);
  EXPECT_EQ(model.tokenizer().character(0), "\n");
  ASSERT_EQ(T, 12u);
  ASSERT_EQ(golden.logits.size(), T * V);
  for (TokenId id : golden.tokens) {
    ASSERT_GE(id, 0);
    ASSERT_LT(static_cast<std::size_t>(id), V);
  }
}

TEST_F(TinyModel, AllPositionLogitsMatchReference) {
  const auto logits = tang::forward(model, golden.tokens, everything, LogitsFor::kAllPositions);
  ASSERT_EQ(logits.shape(0), T);
  ASSERT_EQ(logits.shape(1), V);
  const double error = relative_error(copy_of(logits), golden.logits);
  std::printf("[ measured ] logits vs float64 reference: relative error %.3g\n", error);
  EXPECT_LE(error, kTolerance);

  // The residual stream before ln_f is what the last block leaves: a failure
  // above that passes here points at ln_f or the tied output layer.
  const auto& x = everything.layers.back().residual3;
  const std::vector<float> residual(x.data(), x.data() + T * model.config().n_embd);
  EXPECT_LE(relative_error(residual, golden.residual), kTolerance);
}

TEST_F(TinyModel, LastPositionLogitsMatchReference) {
  const auto logits = tang::forward(model, golden.tokens, last);  // the lessons' call
  ASSERT_EQ(logits.shape(0), 1u);
  ASSERT_EQ(logits.shape(1), V);
  EXPECT_LE(relative_error(copy_of(logits), golden.row(T - 1)), kTolerance);
}

TEST_F(TinyModel, NextTokenLossMatchesReference) {
  auto logits = all_positions(golden.tokens);
  // Positions 0 .. T-2 predict tokens 1 .. T-1.
  std::vector<float> losses(T - 1), probs((T - 1) * V);
  const float loss = tang::ops::crossentropy_forward(losses.data(), probs.data(), logits.data(),
                                                     golden.tokens.data() + 1, T - 1, V);
  EXPECT_NEAR(loss, golden.loss, 1e-5 * golden.loss);
  EXPECT_LE(relative_error(losses, golden.losses), kTolerance);
}

// --- (b) every row is computed on its own: a prefix gives the same bits ---------

// Each operation works row by row, and position t attends over 0 .. t whatever
// comes after: reading only tokens 0 .. t gives row t of the whole window, bit for bit.
// (This is what lets lesson 06's cache give exactly the same text.)
TEST_F(TinyModel, EveryPrefixGivesItsRowOfTheWholeWindowBitForBit) {
  const auto all = all_positions(golden.tokens);
  for (std::size_t t = 0; t < T; ++t) {
    const auto prefix = last_position(std::span(golden.tokens).first(t + 1));
    const std::span<const float> row(all.data() + t * V, V);
    EXPECT_EQ(bit_difference(prefix, row), "") << "prefix of " << t + 1 << " tokens";
    EXPECT_LE(relative_error(prefix, golden.row(t)), kTolerance) << "position " << t;
  }
}

TEST_F(TinyModel, TheSameCallTwiceGivesTheSameBits) {
  const auto a = all_positions(golden.tokens);
  const auto b = all_positions(golden.tokens);
  EXPECT_EQ(bit_difference(a, b), "");
}

// --- (c) causality: a later token never changes earlier logits -----------------

TEST_F(TinyModel, ChangingALaterTokenLeavesEarlierLogitsAlone) {
  const std::size_t changed = 7;
  std::vector<TokenId> other = golden.tokens;
  other[changed] = static_cast<TokenId>((other[changed] + 1) % static_cast<TokenId>(V));

  const auto a = all_positions(golden.tokens);
  const auto b = all_positions(other);
  for (std::size_t i = 0; i < changed * V; ++i) {
    ASSERT_EQ(a[i], b[i]) << "position " << i / V << " saw the change at position " << changed;
  }
  // ... and the changed and later positions do differ.
  for (std::size_t t = changed; t < T; ++t) {
    EXPECT_FALSE(std::equal(a.begin() + t * V, a.begin() + (t + 1) * V, b.begin() + t * V))
        << "position " << t;
  }
}

// --- (d) a batch is its sequences side by side ------------------------------------

TEST_F(TinyModel, ABatchGivesEachSequenceItsOwnLogits) {
  const std::size_t B = 3, len = 9;
  std::vector<TokenId> batch;
  std::vector<std::vector<TokenId>> sequences;
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<TokenId> s(golden.tokens.begin() + static_cast<std::ptrdiff_t>(b),
                           golden.tokens.begin() + static_cast<std::ptrdiff_t>(b + len));
    batch.insert(batch.end(), s.begin(), s.end());
    sequences.push_back(s);
  }
  tang::Activations acts(model.config(), B, tang::Keep::kEverything);
  const auto logits = copy_of(tang::forward(model.config(), model.weights(), batch, B, len, acts,
                                            tang::kPlainKernels, LogitsFor::kAllPositions));
  ASSERT_EQ(logits.size(), B * len * V);
  for (std::size_t b = 0; b < B; ++b) {
    const auto alone = all_positions(sequences[b]);
    const std::span<const float> part(logits.data() + b * len * V, len * V);
    EXPECT_EQ(bit_difference(part, alone), "") << "sequence " << b << " of the batch";
  }
}

// --- (e) the generation loop without a cache ---------------------------------------

TEST_F(TinyModel, RecomputeIsTheForwardPassOfTheCroppedContext) {
  tang::Recompute predictor(model);
  const std::size_t block = model.config().block_size;
  std::vector<TokenId> context;
  tang::Rng rng(3);
  for (std::size_t length = 1; length <= 2 * block + 5; ++length) {
    context.push_back(static_cast<TokenId>(rng.below(V)));
    const auto got = copy_of(predictor.next_logits(context));
    const auto window = tang::crop_to_context(context, block);
    EXPECT_EQ(window.size(), std::min(length, block));
    EXPECT_TRUE(std::equal(window.begin(), window.end(),
                           context.end() - static_cast<std::ptrdiff_t>(window.size())))
        << "the window is the LAST block_size characters";
    EXPECT_EQ(bit_difference(got, last_position(window)), "") << "context of " << length;
  }
  EXPECT_THROW(predictor.next_logits(std::vector<TokenId>{}), std::invalid_argument);
}

TEST_F(TinyModel, WriteAppendsAndStopsAtTheNewline) {
  tang::Recompute predictor(model);
  tang::Rng rng(1);
  // a picker that writes 3, 4, 5, 6, then the newline (id 0), then 8, 9, ... (mod 11)
  const tang::Picker pick = [](std::span<float> logits, std::size_t written, tang::Rng&,
                               tang::StepRecord*) {
    EXPECT_EQ(logits.size(), 11u);
    return written == 4 ? TokenId{0} : static_cast<TokenId>((3 + written) % 11);
  };
  std::vector<TokenId> context = {0, 1};
  const auto written = tang::write(predictor, context, pick, rng, 10, TokenId{0});
  EXPECT_EQ(written, (std::vector<TokenId>{3, 4, 5, 6, 0}));
  EXPECT_EQ(context, (std::vector<TokenId>{0, 1, 3, 4, 5, 6, 0}));
  std::vector<TokenId> again = {0, 1};
  EXPECT_EQ(tang::write(predictor, again, pick, rng, 10, std::nullopt).size(), 10u)
      << "without stop_after it writes max_new characters";
  std::vector<TokenId> short_context = {0};
  EXPECT_EQ(tang::write(predictor, short_context, pick, rng, 2, TokenId{0}).size(), 2u);

  // write_poem: the opening plus what is written, without the final newline
  tang::Rng poem_rng(1);
  EXPECT_EQ(tang::write_poem(predictor, model.tokenizer(), "春风", pick, poem_rng, 10),
            "春风" + model.tokenizer().decode({3, 4, 5, 6}));
}

// --- (f) forward refuses what it cannot do --------------------------------------

TEST_F(TinyModel, ForwardRejectsWhatDoesNotFit) {
  const std::span<const TokenId> tokens(golden.tokens);
  // no tokens at all
  EXPECT_THROW(tang::forward(model, tokens.first(0), last), std::invalid_argument);
  // more than the context holds
  const std::vector<TokenId> long_text(model.config().block_size + 1, 1);
  EXPECT_THROW(tang::forward(model, long_text, last), std::invalid_argument);
  EXPECT_NO_THROW(tang::forward(model, std::span(long_text).first(model.config().block_size), last))
      << "exactly block_size characters fit";
  // ids the model does not have
  for (const TokenId bad : {TokenId{-1}, static_cast<TokenId>(V)}) {
    std::vector<TokenId> ids = golden.tokens;
    ids[3] = bad;
    EXPECT_THROW(tang::forward(model, ids, last), std::invalid_argument) << "id " << bad;
  }
  // all positions' logits need Activations that keep them
  EXPECT_THROW(tang::forward(model, tokens, last, LogitsFor::kAllPositions), std::invalid_argument);
  // batches: no larger than the activations, and last-position logits are for one sequence
  const auto& cfg = model.config();
  const std::vector<TokenId> two(2 * 4, 1);
  EXPECT_THROW(tang::forward(cfg, model.weights(), two, 2, 4, everything, tang::kPlainKernels,
                             LogitsFor::kAllPositions),
               std::invalid_argument);
  tang::Activations pair(cfg, 2, tang::Keep::kEverything);
  EXPECT_THROW(tang::forward(cfg, model.weights(), two, 2, 4, pair, tang::kPlainKernels,
                             LogitsFor::kLastPosition),
               std::invalid_argument);
  EXPECT_THROW(tang::forward(cfg, model.weights(), std::span(two).first(7), 2, 4, pair,
                             tang::kPlainKernels, LogitsFor::kAllPositions),
               std::invalid_argument)
      << "B x T must be the number of tokens";
  EXPECT_NO_THROW(tang::forward(cfg, model.weights(), two, 2, 4, pair, tang::kPlainKernels,
                                LogitsFor::kAllPositions));
}

// --- ops::dot: the order of additions that makes the lessons' bits portable ---------

// ops.hpp's contract, written out: lane k adds a_i b_i for i = k, k+8, k+16, ... in
// that order (each product rounded to float, no fused multiply-add), then the 8 lanes
// are added pairwise: (l0+l4 + l2+l6) + (l1+l5 + l3+l7).
float dot_as_documented(const float* a, const float* b, std::size_t n) {
  float lane[8] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const float product = a[i] * b[i];
    lane[i % 8] += product;
  }
  const float l04 = lane[0] + lane[4], l15 = lane[1] + lane[5], l26 = lane[2] + lane[6],
              l37 = lane[3] + lane[7];
  return (l04 + l26) + (l15 + l37);
}

TEST(Dot, AddsInTheDocumentedOrder) {
  tang::Rng rng(4);
  for (const std::size_t n : {0u, 1u, 7u, 8u, 9u, 16u, 32u, 37u, 128u, 512u, 1001u}) {
    std::vector<float> a(n), b(n);
    for (float& x : a) x = rng.normal();
    for (float& x : b) x = rng.normal() * 1000.0f;  // large terms: any other order shows
    const float got = tang::ops::dot(a.data(), b.data(), n);
    const float expected = dot_as_documented(a.data(), b.data(), n);
    EXPECT_EQ(std::memcmp(&got, &expected, sizeof(float)), 0)
        << "n " << n << ": " << got << " vs " << expected;
  }
}

// --- the parameter table (common/parameters.hpp) -------------------------------------

TEST(Parameters, OneTableGivesLayoutViewsAndInitialisation) {
  tang::GPTConfig config;  // the course's model: 4 layers, 128 dims, context 128
  config.vocab_size = 7129;
  const auto layout = tang::parameter_layout(config);
  ASSERT_EQ(layout.size(), 2u + 12u * config.n_layer + 2u);
  std::size_t offset = 0;
  for (const auto& spec : layout) {
    EXPECT_EQ(spec.offset, offset) << spec.name << ": parameters lie back to back";
    std::size_t size = 1;
    for (std::size_t d : spec.shape) size *= d;
    EXPECT_EQ(spec.size, size) << spec.name;
    EXPECT_EQ(spec.decays(), spec.shape.size() == 2) << spec.name;
    offset += spec.size;
  }
  EXPECT_EQ(offset, tang::parameter_count(config));
  EXPECT_EQ(tang::parameter_count(config), 1722240u) << "the README's count";
  EXPECT_EQ(layout.front().name, "wte.weight");
  EXPECT_EQ(layout[2].name, "h.0.ln_1.weight");
  EXPECT_EQ(layout.back().name, "ln_f.bias");

  // the named views point at their table entries
  std::vector<float> flat(tang::parameter_count(config));
  const tang::GPTWeights w = tang::bind_weights(config, flat.data());
  auto at = [&](const std::string& name) {
    for (const auto& spec : layout)
      if (spec.name == name) return flat.data() + spec.offset;
    return static_cast<float*>(nullptr);
  };
  EXPECT_EQ(w.wte, at("wte.weight"));
  EXPECT_EQ(w.wpe, at("wpe.weight"));
  ASSERT_EQ(w.layers.size(), config.n_layer);
  EXPECT_EQ(w.layers[0].qkv_w, at("h.0.attn.qkv.weight"));
  EXPECT_EQ(w.layers[3].fc_proj_b, at("h.3.mlp.proj.bias"));
  EXPECT_EQ(w.lnf_w, at("ln_f.weight"));
  EXPECT_EQ(w.lnf_b, at("ln_f.bias"));

  // initialisation by each entry's rule, the same for the same seed
  tang::Rng rng(1), again(1);
  tang::initialise_parameters(config, flat.data(), rng);
  std::vector<float> second(flat.size());
  tang::initialise_parameters(config, second.data(), again);
  EXPECT_EQ(flat, second);
  for (const auto& spec : layout) {
    const float* p = flat.data() + spec.offset;
    if (spec.init == tang::Init::kZeros || spec.init == tang::Init::kOnes) {
      const float value = spec.init == tang::Init::kOnes ? 1.0f : 0.0f;
      for (std::size_t i = 0; i < spec.size; ++i) ASSERT_EQ(p[i], value) << spec.name;
    } else {
      double sum = 0.0, squares = 0.0;
      for (std::size_t i = 0; i < spec.size; ++i) sum += p[i], squares += double{p[i]} * p[i];
      const double n = static_cast<double>(spec.size);
      EXPECT_NEAR(sum / n, 0.0, 0.005) << spec.name;
      EXPECT_NEAR(std::sqrt(squares / n), 0.02, 0.002) << spec.name << ": N(0, 0.02^2)";
    }
  }
  EXPECT_EQ(tang::Init::kOnes, layout[2].init) << "LayerNorm scales start at 1";
}

// Lesson 10's variants: the same table with their own attention inputs.
TEST(Parameters, EveryAttentionVariantHasItsShapesAndViews) {
  tang::GPTConfig config;
  config.vocab_size = 7129;
  auto shape_of = [](const tang::GPTConfig& c, const std::string& name) {
    for (const auto& spec : tang::parameter_layout(c))
      if (spec.name == name) return spec.shape;
    return std::vector<std::size_t>{};
  };
  config.n_kv_head = 2;  // grouped: q (128) + 2 key heads + 2 value heads of 32
  EXPECT_EQ(shape_of(config, "h.0.attn.qkv.weight"), (std::vector<std::size_t>{256, 128}));
  EXPECT_EQ(tang::parameter_count(config), 1722240u - 4u * (128u * 128u + 128u));
  config.n_kv_head = 1;  // multi-query
  EXPECT_EQ(shape_of(config, "h.3.attn.qkv.bias"), (std::vector<std::size_t>{192}));
  config.n_kv_head = 0;
  config.kv_latent = 32;  // latent: q + c, then keys and values from c
  EXPECT_TRUE(shape_of(config, "h.0.attn.qkv.weight").empty());
  EXPECT_EQ(shape_of(config, "h.0.attn.q_latent.weight"), (std::vector<std::size_t>{160, 128}));
  EXPECT_EQ(shape_of(config, "h.0.attn.kv_up.weight"), (std::vector<std::size_t>{256, 32}));
  std::vector<float> flat(tang::parameter_count(config));
  const tang::GPTWeights w = tang::bind_weights(config, flat.data());
  for (const auto& spec : tang::parameter_layout(config)) {
    if (spec.name == "h.2.attn.kv_up.weight") {
      EXPECT_EQ(w.layers[2].kv_up_w, flat.data() + spec.offset);
    }
    if (spec.name == "h.2.attn.q_latent.weight") {
      EXPECT_EQ(w.layers[2].qkv_w, flat.data() + spec.offset);
    }
  }
  tang::Rng rng(3);
  tang::initialise_parameters(config, flat.data(), rng);
  double squares = 0.0;
  for (std::size_t i = 0; i < 256 * 32; ++i)
    squares += double{w.layers[2].kv_up_w[i]} * w.layers[2].kv_up_w[i];
  EXPECT_NEAR(std::sqrt(squares / (256 * 32)), 1.0 / std::sqrt(32.0), 0.01)
      << "kv_up starts N(0, 1/d_c)";
}

// --- a model of the course's shape, random weights, over a whole context ----------

TEST(RandomModel, EveryPrefixGivesItsRowOverTheWholeContext) {
  const tang::GPT model = tang::testing::random_model(7);
  const auto& config = model.config();
  tang::Rng rng(8);
  std::vector<TokenId> tokens(config.block_size);
  for (TokenId& t : tokens) t = static_cast<TokenId>(rng.below(config.vocab_size));
  tang::Activations everything(config, 1, tang::Keep::kEverything), last(config);
  const auto all = copy_of(tang::forward(model, tokens, everything, LogitsFor::kAllPositions));
  for (std::size_t i = 0; i < config.block_size; ++i) {
    const auto prefix = copy_of(tang::forward(model, std::span(tokens).first(i + 1), last));
    const std::span<const float> row(all.data() + i * config.vocab_size, config.vocab_size);
    ASSERT_EQ(bit_difference(prefix, row), "") << "prefix of " << i + 1 << " tokens";
  }
}

}  // namespace
