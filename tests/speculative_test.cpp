// speculative_test: lesson 12's writer. The sampler's distribution draws what
// lesson 03's sampler draws, and at temperature 0 the speculative text is
// lesson 06's greedy text for every k and drafter, within the context and past
// it. (The accept/reject rule itself, and the distribution of its text:
// tests/exercises/exercise_12_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/verse_constraint.hpp"
#include "07_verse/verse_form.hpp"
#include "12_speculative/form_drafter.hpp"
#include "12_speculative/model_drafter.hpp"
#include "12_speculative/ngram_drafter.hpp"
#include "12_speculative/sampling_distribution.hpp"
#include "12_speculative/speculative_writer.hpp"
#include "checkpoint.hpp"
#include "generate.hpp"
#include "shipped_model.hpp"

namespace {

using tang::TokenId;

TEST(SamplingDistribution, DrawsWhatLessonThreesSamplerDraws) {
  tang::Rng rng(3);
  std::vector<float> logits(50);
  for (float& z : logits) z = 3 * rng.normal();
  const tang::Constraint no_odd = [](std::span<float> z) {
    for (std::size_t i = 1; i < z.size(); i += 2) z[i] = -INFINITY;
  };
  for (const tang::SamplingSettings s :
       {tang::SamplingSettings{0.0f, 0, 1.0f}, tang::SamplingSettings{0.8f, 20, 1.0f},
        tang::SamplingSettings{1.2f, 0, 0.9f}, tang::SamplingSettings{1.0f, 5, 0.5f}}) {
    for (const bool masked : {false, true}) {
      for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        std::vector<float> plain = logits, dist = logits;
        tang::Rng draws(seed);
        const TokenId drawn =
            tang::sample_next(plain, s, draws, nullptr, masked ? no_odd : tang::Constraint{});
        tang::to_sampling_distribution(dist, s, masked ? no_odd : tang::Constraint{});
        const float coin = s.temperature == 0.0f ? 0.5f : tang::Rng(seed).uniform();
        EXPECT_EQ(tang::sample_from(dist, coin), drawn)
            << "T " << s.temperature << " seed " << seed;
      }
    }
  }
}

// At temperature 0 the text is lesson 06's greedy text, whatever the drafter
// (the n-gram table, the draft model, one that always guesses a comma) and k,
// within the context and past it.
class AlwaysTheSame : public tang::Drafter {
 public:
  AlwaysTheSame(TokenId guess, std::size_t V) : guess_(guess), V_(V) {}
  void draft(std::span<const TokenId>, std::size_t k, tang::Rng&, std::vector<TokenId>& drafted,
             std::vector<float>& q) override {
    drafted.assign(k, guess_);
    q.assign(k * V_, 0.0f);
    for (std::size_t i = 0; i < k; ++i) q[i * V_ + static_cast<std::size_t>(guess_)] = 1.0f;
  }

 private:
  TokenId guess_;
  std::size_t V_;
};

TEST(WriteSpeculative, AtTemperatureZeroIsLessonSixsGreedyText) {
  NEED_SHIPPED_MODEL();
  const tang::Tokenizer& tok = model.tokenizer();
  const std::size_t V = model.config().vocab_size;
  tang::NgramDrafter ngram(
      tang::training_stream(tok, std::string(TANG_DATA_DIR) + "/tang_poems.txt"), 4, V);
  AlwaysTheSame comma(tok.encode("，")[0], V);
  const std::string draft_path = std::string(TANG_DATA_DIR) + "/draft/tang_draft.safetensors";
  ASSERT_TRUE(std::filesystem::exists(draft_path)) << draft_path;
  const tang::GPT draft = tang::load_checkpoint(draft_path);
  std::string long_opening;  // 126 characters, mid-line: the poem goes past the context of 128
  for (int i = 0; i < 5; ++i) long_opening += "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。";
  long_opening += "白日依山尽，";
  const tang::SamplingSettings greedy{0.0f, 0, 1.0f};
  for (const std::string& opening : {std::string(""), std::string("春风"), long_opening}) {
    const std::size_t max_new = opening.size() > 100 ? 40 : 64;
    std::vector<TokenId> lesson_context = tok.encode("\n" + opening);
    tang::CachedPredictor<> predictor(model);
    tang::Rng unused(1);
    const std::vector<TokenId> lesson = tang::write(
        predictor, lesson_context, tang::sampling_picker(greedy), unused, max_new, tok.newline());
    tang::ModelDrafter small(draft, greedy);  // lesson 12's draft model, its own cache cut back
    for (tang::Drafter* drafter :
         {static_cast<tang::Drafter*>(&ngram), static_cast<tang::Drafter*>(&comma),
          static_cast<tang::Drafter*>(&small)}) {
      for (std::size_t k = 1; k <= 8; ++k) {
        std::vector<TokenId> context = tok.encode("\n" + opening);
        tang::Rng rng(5);
        tang::SpeculativeCounts counts;
        const std::vector<TokenId> written = tang::write_speculative(
            model, *drafter, context, greedy, rng, k, max_new, tok.newline(), &counts);
        EXPECT_EQ(tok.decode(written), tok.decode(lesson))
            << "k " << k
            << (drafter == &ngram   ? ", n-gram"
                : drafter == &comma ? ", always a comma"
                                    : ", model")
            << ", opening '" << opening.substr(0, 12) << "'";
        EXPECT_EQ(counts.written, written.size());
        if (opening == long_opening) {
          EXPECT_GT(context.size(), model.config().block_size) << "the window slid";
        }
        if (drafter == &ngram && opening == "春风" && k == 4) {
          EXPECT_GT(counts.accepted, 0u) << "the n-gram drafter is right sometimes";
          EXPECT_LT(counts.rounds, written.size()) << "fewer forward passes than characters";
        }
      }
    }
  }
}

// Lesson 07's regular verse at T 0: with the form's mask on every distribution,
// the text is lesson 07's beam search at width 1, and the form drafter's certain
// characters (each line's punctuation, the final newline) are always kept.
TEST(WriteSpeculative, RegularVerseIsLessonSevensAndItsCertainCharactersAreKept) {
  NEED_SHIPPED_MODEL();
  const tang::Tokenizer& tok = model.tokenizer();
  const std::size_t V = model.config().vocab_size;
  const tang::VerseTables tables = tang::VerseTables::load_shipped();
  const tang::VerseVocabulary vocab(tok, tables);
  AlwaysTheSame never_right(tok.encode("山")[0], V);  // the form's characters are all it gets
  const tang::SamplingSettings greedy{0.0f, 0, 1.0f};
  for (const tang::VerseForm& form : tang::verse_forms()) {
    tang::VerseConstraint constraint(vocab, form);
    constraint.with_tones(tang::default_pattern(form)).without_repeats();
    tang::Rng unused(1);
    const tang::WrittenVerse lesson07 =
        tang::write_verse(model, constraint, tang::BeamSettings{1, greedy}, unused);
    const tang::MaskFor mask_for = [&](std::span<const TokenId> context) {
      return constraint.allowed_next(context.subspan(1));  // what was written after "\n"
    };
    tang::FormDrafter drafter(never_right, mask_for, V);
    for (const std::size_t k : {1u, 2u, 4u, 8u}) {
      std::vector<TokenId> context = tok.encode("\n");
      tang::Rng rng(3);
      tang::SpeculativeCounts counts;
      const std::vector<TokenId> written =
          tang::write_speculative(model, drafter, context, greedy, rng, k, constraint.length(),
                                  tok.newline(), &counts, mask_for);
      EXPECT_EQ(tok.decode(written), tok.decode(lesson07.tokens)) << form.name << ", k " << k;
      std::size_t certain = 0;  // the lines' punctuation (the newline after the last is often
      for (const TokenId t : written)  // drawn by the round that kept it, not drafted)
        certain += t == tok.encode("，")[0] || t == tok.encode("。")[0];
      EXPECT_GE(counts.accepted, certain)
          << form.name << ", k " << k << ": the form's characters are drafted and kept";
    }
  }
}

}  // namespace
