// exercise_09b_test: EXERCISE 09b, the logit lens
// (lessons/09_inside/exercise/logit_lens.cpp).
//
//   ctest --preset yours -L '^yours_09b$'    your code
//   ctest --preset release -L exercise_09b    the reference solution
//
// A tiny model whose numbers are set by hand, where ln_f and the output layer
// can be followed on paper; then a random model, where the lens on the last
// block's stream must be the model's own next-character distribution, bit for
// bit.

#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include "09_inside/exercise/logit_lens.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "sampling.hpp"

namespace {

using tang::Candidate;
using tang::GPT;
using tang::GPTConfig;
using tang::logit_lens;

GPT tiny_model(std::size_t vocab, std::size_t dims, std::uint64_t seed) {
  GPTConfig cfg;
  cfg.vocab_size = vocab, cfg.block_size = 8, cfg.n_layer = 1, cfg.n_head = 1, cfg.n_embd = dims;
  std::vector<std::string> chars = {"\n"};
  const char* pool[] = {"春", "夏", "秋", "冬", "山", "水", "月", "风", "花", "雪", "云"};
  for (std::size_t i = 1; i < vocab; ++i) chars.push_back(pool[i - 1]);
  tang::Tensor<1> params = tang::Tensor<1>::from_shape({tang::parameter_count(cfg)});
  tang::Rng rng(seed);
  tang::initialise_parameters(cfg, params.data(), rng);
  return GPT(cfg, tang::Tokenizer(chars), std::move(params));
}

// C = 2, V = 3: ln_f with weight 1 and bias 0, wte rows (1, 0), (0, 1), (1, 1).
GPT on_paper_model() {
  GPT model = tiny_model(3, 2, 1);
  const tang::GPTWeights& w = model.weights();
  w.lnf_w[0] = w.lnf_w[1] = 1.0f;
  w.lnf_b[0] = w.lnf_b[1] = 0.0f;
  const float wte[] = {1, 0, 0, 1, 1, 1};
  std::copy(std::begin(wte), std::end(wte), w.wte);
  return model;
}

TEST(Exercise09b, OnPaper) {
  // C = 2, V = 3; ln_f of (1, 3) is (-1, 1) (mean 2, variance 1); with weight 1,
  // bias 0 the logits are wte @ (-1, 1): rows (1, 0), (0, 1), (1, 1) give -1, 1, 0
  const GPT model = on_paper_model();
  const std::vector<float> residual = {1.0f, 3.0f};
  const std::vector<Candidate> top = logit_lens(model, residual, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].id, 1) << "logit 1 is the largest";
  EXPECT_EQ(top[1].id, 2) << "then logit 0";
  EXPECT_EQ(top[2].id, 0) << "then logit -1";
  // LayerNorm's eps 1e-5 makes (-1, 1) a hair smaller: about 0.999995
  const double z = 1.0 / std::sqrt(1.0 + 1e-5);
  const double total = std::exp(z) + 1.0 + std::exp(-z);
  EXPECT_NEAR(top[0].probability, std::exp(z) / total, 1e-6) << "softmax of the logits";
  EXPECT_NEAR(top[1].probability, 1.0 / total, 1e-6);
  EXPECT_NEAR(top[2].probability, std::exp(-z) / total, 1e-6);
}

TEST(Exercise09b, KLimitsTheListAndTiesGoToTheSmallerId) {
  GPT model = tiny_model(5, 2, 2);
  const tang::GPTWeights& w = model.weights();
  w.lnf_w[0] = w.lnf_w[1] = 1.0f;
  w.lnf_b[0] = w.lnf_b[1] = 0.0f;
  // ids 1 and 3 get the same largest logit, ids 0, 2 and 4 the same smaller one
  const float wte[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0};
  std::copy(std::begin(wte), std::end(wte), w.wte);
  const std::vector<float> residual = {1.0f, 3.0f};
  const std::vector<Candidate> two = logit_lens(model, residual, 2);
  ASSERT_EQ(two.size(), 2u) << "k = 2";
  EXPECT_EQ(two[0].id, 1) << "a tie: the smaller id first";
  EXPECT_EQ(two[1].id, 3);
  const std::vector<Candidate> all = logit_lens(model, residual, 50);
  EXPECT_EQ(all.size(), 5u) << "k larger than the vocabulary returns all of it";
  float sum = 0.0f;
  for (const Candidate& c : all) sum += c.probability;
  EXPECT_NEAR(sum, 1.0f, 1e-6f) << "the whole vocabulary's probabilities sum to 1";
}

TEST(Exercise09b, TheLastBlocksStreamGivesTheModelsOwnOutput) {
  for (std::uint64_t seed : {3u, 4u, 5u}) {
    const GPT model = tiny_model(12, 16, seed);
    const std::vector<tang::TokenId> tokens = {0, 3, 5, 7, 2};
    tang::Activations acts(model.config(), 1, tang::Keep::kEverything);
    const auto logits = tang::forward(model, tokens, acts);  // (1, V) the last position
    std::vector<float> probabilities(logits.begin(), logits.end());
    tang::softmax_in_place(probabilities);
    const std::size_t C = model.config().n_embd, last = tokens.size() - 1;
    const float* stream = acts.layers.back().residual3.data() + last * C;  // (C)
    const std::vector<Candidate> top = logit_lens(model, std::span(stream, C), 12);
    ASSERT_EQ(top.size(), 12u);
    for (const Candidate& c : top) {
      EXPECT_EQ(c.probability, probabilities[static_cast<std::size_t>(c.id)])
          << "seed " << seed << ", id " << c.id
          << ": ln_f and the output layer on the last block's stream are the model's own last "
             "two steps, bit for bit";
    }
  }
}

// The lesson passes one position's stream, a span of C numbers inside the (T, C)
// residual: here the next C numbers past its end are another position's, made large,
// and ln_f must not see them (its mean and variance would change every probability).
TEST(Exercise09b, ReadsNothingPastTheEndOfTheResidual) {
  const GPT model = on_paper_model();
  const std::vector<float> stream = {1.0f, 3.0f, 40.0f, -70.0f};  // positions 0 and 1
  const std::vector<Candidate> top = logit_lens(model, std::span(stream).first(2), 3);
  ASSERT_EQ(top.size(), 3u);
  // as in OnPaper: ln_f of (1, 3) is about (-1, 1), the logits -1, 1, 0
  const double z = 1.0 / std::sqrt(1.0 + 1e-5);
  const double total = std::exp(z) + 1.0 + std::exp(-z);
  const double expected[] = {std::exp(z) / total, 1.0 / total, std::exp(-z) / total};
  const tang::TokenId ids[] = {1, 2, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(top[i].id, ids[i]) << "place " << i;
    EXPECT_NEAR(top[i].probability, expected[i], 1e-6)
        << "the residual is (1, 3), as in OnPaper; the span ends after C = 2 numbers, but the "
           "buffer it lies in goes on with 40, -70: normalise residual.size() numbers only, "
           "never past the span's end";
  }
}

TEST(Exercise09b, AResidualOfTheWrongSizeIsAnError) {
  const GPT model = tiny_model(5, 4, 6);
  const std::vector<float> three(3, 0.0f);
  EXPECT_THROW(logit_lens(model, three, 2), std::invalid_argument) << "C = 4 numbers expected";
}

}  // namespace
