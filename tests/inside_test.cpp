// inside_test: lesson 09's instruments (lessons/09_inside/): the line layout of a
// poem, what one forward pass keeps, the head table's sums, and the knockout.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "09_inside/head_patterns.hpp"
#include "09_inside/inside_view.hpp"
#include "09_inside/knockout.hpp"
#include "09_inside/poem_layout.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "shipped_model.hpp"

namespace {

using tang::GPT;
using tang::TokenId;

// A random model whose vocabulary has the newline, the two marks and a few characters.
GPT small_model(std::uint64_t seed, std::size_t layers = 2, std::size_t heads = 2) {
  std::vector<std::string> chars = {"\n", "，", "。", "白", "日", "依", "山",
                                    "尽", "黄", "河", "入", "海", "流"};
  tang::GPTConfig cfg{chars.size(), 32, layers, heads, 8};
  tang::Tensor<1> params = tang::Tensor<1>::from_shape({tang::parameter_count(cfg)});
  tang::Rng rng(seed);
  tang::initialise_parameters(cfg, params.data(), rng);
  return GPT(cfg, tang::Tokenizer(chars), std::move(params));
}

TEST(PoemLayout, LinesColumnsAndMarksOfACouplet) {
  const GPT model = small_model(1);
  const std::vector<TokenId> tokens = model.tokenizer().encode("\n白日依山尽，黄河入海流。");
  const tang::PoemLayout p = tang::layout_of(model.tokenizer(), tokens);
  EXPECT_EQ(p.line, (std::vector<int>{-1, 0, 0, 0, 0, 0, -1, 1, 1, 1, 1, 1, -1}));
  EXPECT_EQ(p.column, (std::vector<int>{-1, 0, 1, 2, 3, 4, -1, 0, 1, 2, 3, 4, -1}));
  EXPECT_TRUE(p.mark[6] && p.mark[12] && !p.mark[0] && !p.mark[5]);
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_EQ(p.lines[1], (std::vector<std::size_t>{7, 8, 9, 10, 11}));
  EXPECT_EQ(tang::rhyme_positions(p), (std::vector<std::size_t>{11})) << "流 ends line 2";
}

TEST(InsideView, KeepsEachHeadsWeightsAndTheStreamTheModelComputes) {
  const GPT model = small_model(2);
  const std::vector<TokenId> tokens = model.tokenizer().encode("\n白日依山尽，黄河");
  tang::Activations acts(model.config(), 1, tang::Keep::kEverything);
  const tang::InsideView v = tang::look_inside(model, tokens, acts);
  ASSERT_EQ(v.T, tokens.size());
  for (std::size_t l = 0; l < v.L; ++l) {
    for (std::size_t h = 0; h < v.NH; ++h) {
      const auto w = v.weights(l, h);
      for (std::size_t t = 0; t < v.T; ++t) {
        double sum = 0.0;
        for (std::size_t s = 0; s < v.T; ++s) {
          sum += w[t * v.T + s];
          if (s > t) {
            EXPECT_EQ(w[t * v.T + s], 0.0f) << "causal: no weight on later positions";
          }
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "layer " << l << " head " << h << " row " << t;
      }
    }
  }
  // the last stage is what forward's ln_f reads: the same numbers as a plain forward's
  tang::Activations plain(model.config(), 1, tang::Keep::kEverything);
  tang::forward(model, tokens, plain);
  const std::size_t C = v.C;
  for (std::size_t t = 0; t < v.T; ++t)
    for (std::size_t i = 0; i < C; ++i)
      EXPECT_EQ(v.residual(v.L, t)[i], plain.layers.back().residual3.data()[t * C + i]);
  tang::Activations last_only(model.config(), 1, tang::Keep::kLastLogits);
  EXPECT_THROW(tang::look_inside(model, tokens, last_only), std::invalid_argument)
      << "without the attention weights there is nothing to look at";
}

TEST(HeadPatterns, UniformHeadsScoreOneTimesUniformAndCountsMatch) {
  const GPT model = small_model(3);
  const std::vector<std::vector<TokenId>> poems = {
      model.tokenizer().encode("\n白日依山尽，黄河入海流。\n"),
      model.tokenizer().encode("\n黄河入海流，白日依山尽。海流入黄河，山尽依白日。\n")};
  const tang::HeadPatterns p = tang::measure_head_patterns(model, poems);
  EXPECT_EQ(p.poems, 2u);
  EXPECT_EQ(p.positions, 13u + 25u) << "each poem with its opening newline, without its final one";
  // column: 5 in the couplet, 15 in the quatrain; rhyme ends: only line 4's rhyme has an earlier
  // one
  EXPECT_EQ(p.uniform[2].queries, 20u);
  EXPECT_EQ(p.uniform[5].queries, 1u) << "the quatrain's line 4 rhyme, after line 2's";
  EXPECT_EQ(p.uniform[0].queries, 38u) << "every position is its own target";
  for (const auto& head : p.heads) {
    for (std::size_t k = 0; k < tang::kPatterns; ++k)
      EXPECT_EQ(head[k].queries, p.uniform[k].queries) << "the same queries for every head";
    // "self" + every other position sums to one; here the newline pattern is bounded by 1
    EXPECT_LE(head[4].weight, static_cast<double>(head[4].queries) + 1e-9);
  }
}

TEST(Knockout, ZeroesOneHeadsColumnsOfTheProjectionOnly) {
  const GPT model = small_model(4, 2, 2);
  const GPT knocked = tang::without_head(model, 1, 0);
  const std::size_t C = model.config().n_embd, HS = model.config().head_size();
  const float* before = model.weights().layers[1].attn_proj_w;
  const float* after = knocked.weights().layers[1].attn_proj_w;
  for (std::size_t o = 0; o < C; ++o) {
    for (std::size_t i = 0; i < C; ++i) {
      if (i < HS)
        EXPECT_EQ(after[o * C + i], 0.0f) << "head 0's inputs to the projection";
      else
        EXPECT_EQ(after[o * C + i], before[o * C + i]) << "head 1's are kept";
    }
  }
  // everything before layer 1's projection is unchanged; the output is not
  const std::vector<TokenId> tokens = model.tokenizer().encode("\n白日依山尽，黄河");
  tang::Activations a(model.config(), 1, tang::Keep::kEverything),
      b(model.config(), 1, tang::Keep::kEverything);
  const tang::InsideView va = tang::look_inside(model, tokens, a);
  const tang::InsideView vb = tang::look_inside(knocked, tokens, b);
  EXPECT_EQ(va.attention, vb.attention) << "attention weights are computed before the projection";
  for (std::size_t s = 0; s <= 1; ++s)
    for (std::size_t t = 0; t < va.T; ++t)
      for (std::size_t i = 0; i < C; ++i) EXPECT_EQ(va.residual(s, t)[i], vb.residual(s, t)[i]);
  bool changed = false;
  for (std::size_t i = 0; i < C; ++i)
    changed |= va.residual(2, va.T - 1)[i] != vb.residual(2, va.T - 1)[i];
  EXPECT_TRUE(changed) << "layer 1's output must change without one of its heads";
  EXPECT_EQ(model.weights().layers[1].attn_proj_w[0], before[0]) << "the original is untouched";
}

TEST(Knockout, OnTheShippedModelThePreviousCharacterHeadIsNamed) {
  NEED_SHIPPED_MODEL();
  // two held-out-style poems are enough to see layer 1's previous-character head
  const std::vector<std::vector<TokenId>> poems = {
      model.tokenizer().encode("\n白日依山尽，黄河入海流。欲穷千里目，更上一层楼。\n"),
      model.tokenizer().encode("\n床前看月光，疑是地上霜。举头望山月，低头思故乡。\n")};
  const tang::HeadPatterns p = tang::measure_head_patterns(model, poems);
  const auto& head = p.heads[0 * p.NH + 2];  // layer 1, head 3
  EXPECT_GT(head[1].weight / static_cast<double>(head[1].queries), 0.8)
      << "layer 1 head 3 puts most of its weight on the previous character";
}

}  // namespace
