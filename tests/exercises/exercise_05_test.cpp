// exercise_05_test: EXERCISE 05, a mask that only lets the model write 七言绝句
// (lessons/05_acrostic/exercise/qiyan_jueju.cpp).
//
//   ctest --preset yours -L '^yours_05$'     your code
//   ctest --preset release -L exercise_05     the reference solution
//
// First the mask at every position, then whole poems: the tiny test model
// (tests/golden/tiny_model.safetensors: "\n" 春 风 花 月 夜 山 水 人 ， 。, random
// weights, so it writes punctuation anywhere it likes) writes under your mask
// with many seeds and temperatures, and every poem must be in form. The poems
// are drawn by a sampler written here, so that these tests need no other
// exercise (the lesson draws with exercises 02 and 03).

#include <gtest/gtest.h>

#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/exercise/qiyan_jueju.hpp"
#include "05_acrostic/fixed_form.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "number_text.hpp"
#include "sampling.hpp"

namespace {

using tang::testing::num;

using tang::qiyan_jueju_mask;
using tang::TokenId;

const tang::GPT& tiny_model() {
  static const tang::GPT model =
      tang::load_checkpoint(std::string(TANG_TESTS_DIR) + "/golden/tiny_model.safetensors");
  return model;
}

std::string shown(const std::string& character) {
  return character == "\n" ? "\\n" : character;
}

// The characters a mask allows, e.g. "{，}" or "{春 风 ...}".
std::string allowed_set(const tang::Tokenizer& tokenizer, const tang::LogitMask& mask) {
  std::string text = "{";
  for (std::size_t id = 0; id < tokenizer.size(); ++id) {
    if (mask.allows(static_cast<TokenId>(id))) {
      if (text.size() > 1) text += " ";
      text += shown(tokenizer.character(static_cast<TokenId>(id)));
    }
  }
  return text + "}";
}

TEST(Exercise05, LineEndsAllowOnlyTheirPunctuation) {
  const tang::Tokenizer& tokenizer = tiny_model().tokenizer();
  const struct {
    std::size_t position;
    const char* only;
    const char* why;
  } ends[] = {{8, "，", "the end of line 1"},
              {16, "。", "the end of line 2"},
              {24, "，", "the end of line 3"},
              {32, "。", "the end of line 4"},
              {33, "\n", "after the fourth line the poem ends"}};
  for (const auto& e : ends) {
    const tang::LogitMask mask = qiyan_jueju_mask(tokenizer, e.position);
    if (mask.allowed_count() != 1 || !mask.allows(*tokenizer.find(e.only))) {
      ADD_FAILURE() << "position " << e.position << " (" << e.why << ") must allow only {"
                    << shown(e.only) << "}; your mask allows " << allowed_set(tokenizer, mask);
    }
  }
}

TEST(Exercise05, InsideALineNoPunctuationAndNoNewline) {
  const tang::Tokenizer& tokenizer = tiny_model().tokenizer();
  for (std::size_t position = 1; position <= 31; ++position) {
    if (position % 8 == 0) continue;
    const tang::LogitMask mask = qiyan_jueju_mask(tokenizer, position);
    bool right = mask.allowed_count() == tokenizer.size() - 3;
    for (const char* banned : {"，", "。", "\n"})
      right = right && !mask.allows(*tokenizer.find(banned));
    if (!right) {
      ADD_FAILURE() << "position " << position << " is inside a line: every character except "
                    << "{， 。 \\n} must be allowed; your mask allows "
                    << allowed_set(tokenizer, mask);
    }
  }
}

TEST(Exercise05, PositionsOutsideThePoemAreAnError) {
  const tang::Tokenizer& tokenizer = tiny_model().tokenizer();
  EXPECT_THROW(qiyan_jueju_mask(tokenizer, 0), std::invalid_argument)
      << "positions count from 1: position 0 must throw std::invalid_argument";
  EXPECT_THROW(qiyan_jueju_mask(tokenizer, 34), std::invalid_argument)
      << "a 七言绝句 has 33 characters with its newline: position 34 must throw "
         "std::invalid_argument";
}

TEST(Exercise05, AVocabularyWithoutThePunctuationIsAnError) {
  const tang::Tokenizer no_full_stop({"\n", "春", "风", "，"});
  EXPECT_THROW(qiyan_jueju_mask(no_full_stop, 1), tang::UserError)
      << "a vocabulary without \"。\" cannot write a 七言绝句: throw tang::UserError naming it";
}

// One character from the masked logits: T = 0 greedy, else softmax(z / T) after
// top-k and one coin; -inf (masked) logits get probability 0 and are never drawn.
TokenId draw(std::span<float> logits, float temperature, std::size_t top_k, tang::Rng& rng) {
  if (temperature == 0.0f) return tang::argmax(logits);
  for (float& z : logits) z /= temperature;
  tang::top_k_filter(logits, top_k);
  tang::softmax_in_place(logits);
  const float coin = rng.uniform();
  float total = 0.0f;
  TokenId last = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (logits[i] <= 0.0f) continue;
    total += logits[i];
    last = static_cast<TokenId>(i);
    if (coin < total) break;
  }
  return last;
}

TEST(Exercise05, EveryPoemIsAQiyanJueju) {
  const tang::GPT& model = tiny_model();
  const tang::Tokenizer& tokenizer = model.tokenizer();
  const struct {
    float temperature;
    std::size_t top_k;
  } settings[] = {{1.5f, 0}, {1.0f, 3}, {3.0f, 0}, {0.0f, 0}};
  tang::Recompute predictor(model);
  int checked = 0;
  for (const auto& s : settings) {
    // mask first (your mask for the position about to be written), then the draw
    const tang::Picker pick = [&](std::span<float> logits, std::size_t written, tang::Rng& rng,
                                  tang::StepRecord*) {
      qiyan_jueju_mask(tokenizer, written + 1).apply(logits);
      return draw(logits, s.temperature, s.top_k, rng);
    };
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
      tang::Rng rng(seed);
      std::vector<TokenId> context = tokenizer.encode("\n");
      // 40 characters of room: a poem that does not stop after 33 is caught too
      const std::vector<TokenId> poem =
          tang::write(predictor, context, pick, rng, 40, tokenizer.newline());
      const std::string problem = tang::qiyan_jueju_problem(tokenizer, poem);
      ASSERT_EQ(problem, "") << "seed " << seed << ", T = " << num(s.temperature)
                             << ", top-k = " << s.top_k << ": the model wrote \""
                             << tokenizer.decode(poem) << "\" under your mask";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 240);
}

}  // namespace
