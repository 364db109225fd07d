// speculative_test: lesson 12's writer. The sampler's distribution draws what
// lesson 03's sampler draws; at temperature 0 the speculative text is lesson 06's
// greedy text for every k and drafter, within the context and past it; and the
// form's drafter keeps the text the model's under the form at T > 0, on the
// stand-in chain and on the shipped model (chi-square tests). (The accept/reject
// rule itself, and the distribution of its text: tests/exercises/exercise_12_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/logit_mask.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/verse_constraint.hpp"
#include "07_verse/verse_form.hpp"
#include "12_speculative/exercise/accept_drafts.hpp"
#include "12_speculative/form_drafter.hpp"
#include "12_speculative/model_drafter.hpp"
#include "12_speculative/ngram_drafter.hpp"
#include "12_speculative/sampling_distribution.hpp"
#include "12_speculative/speculative_writer.hpp"
#include "checkpoint.hpp"
#include "exercises/chi_square.hpp"
#include "exercises/stand_in_chain.hpp"
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

// The form's drafter in front of a drafter that guesses at random, on the
// stand-in chain (exercises/stand_in_chain.hpp) under a form: the first two
// characters written follow the chain's distribution under the form's mask,
// whatever the guesses the form bans. A form drafter that stops drafting at a
// banned guess is not: that the guess was banned says something about where
// q's draw fell, and the position is then drawn from p alone.
using tang::testing::ChainTable;
using tang::testing::kChainV;

// The form: after 7 only 0 (a character the form decides), otherwise neither 5
// nor the character after the last one.
tang::LogitMask chain_form(std::span<const TokenId> context) {
  tang::LogitMask mask(kChainV);
  const TokenId last = context.back();
  if (last == 7) {
    const TokenId only[] = {0};
    return mask.allow_only(only);
  }
  mask.ban(5).ban(static_cast<TokenId>((last + 1) % kChainV));
  return mask;
}

// The chain's table with the form's mask on every row, renormalised.
ChainTable under_the_form(const ChainTable& p) {
  ChainTable masked{};
  for (std::size_t a = 0; a < kChainV; ++a) {
    const TokenId context[] = {static_cast<TokenId>(a)};
    const tang::LogitMask mask = chain_form(context);
    float total = 0;
    for (std::size_t b = 0; b < kChainV; ++b)
      total += masked[a][b] = mask.allows(static_cast<TokenId>(b)) ? p[a][b] : 0.0f;
    for (float& x : masked[a]) x /= total;
  }
  return masked;
}

TEST(FormDrafter, TheTextFollowsTheMaskedModelWhateverTheGuessesTheFormBans) {
  tang::Rng tables(11);
  const ChainTable p = tang::testing::random_chain(tables, 1.0f),
                   q = tang::testing::random_chain(tables, 1.0f);
  const ChainTable p_form = under_the_form(p);
  tang::testing::ChainDrafter guesses(q);
  const tang::MaskFor mask_for = chain_form;
  tang::FormDrafter drafter(guesses, mask_for, kChainV);
  for (const std::size_t k : {1u, 2u, 4u}) {
    const tang::testing::PairStatistic s = tang::testing::chi_square_of_two_characters(
        p_form, drafter, k, tang::accept_drafts, 100000, 2025);
    const double limit = tang::testing::chi_square_quantile(s.df, 0.001);
    EXPECT_LT(s.chi, limit) << "k " << k << ": over 100,000 pairs the first two characters "
                            << "are not the chain's under the form: chi-square " << s.chi << " at "
                            << s.df << " degrees of freedom, above " << limit;
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

// On the shipped model: lesson 07's 五绝 after "山", T 0.8 (top 20), the form's
// drafter in front of the draft model, against lesson 03's sampler under the
// same mask writing one character at a time. The first and the second character
// written, each by a two-sample chi-square test (characters seen fewer than 10
// times in both samples pooled into one cell), at significance 0.001 over the
// four tests. A form drafter that stops at a banned guess failed it (p below 1e-13).
TEST(FormDrafter, OnTheShippedModelTheFormAndDraftModelWriteTheMaskedSamplersText) {
  NEED_SHIPPED_MODEL();
  const tang::Tokenizer& tok = model.tokenizer();
  const std::size_t V = model.config().vocab_size;
  const tang::GPT draft =
      tang::load_checkpoint(std::string(TANG_DATA_DIR) + "/draft/tang_draft.safetensors");
  const tang::VerseTables tables = tang::VerseTables::load_shipped();
  const tang::VerseVocabulary vocab(tok, tables);
  const tang::VerseForm form = *tang::form_named("五绝");
  tang::VerseConstraint constraint(vocab, form);
  constraint.with_tones(tang::default_pattern(form)).without_repeats();
  const tang::MaskFor mask_for = [&](std::span<const TokenId> context) {
    return constraint.allowed_next(context.subspan(1));  // what was written after "\n"
  };
  const tang::SamplingSettings s{0.8f, 20, 1.0f};
#ifdef TANG_SANITIZED  // there the test is for memory: 2,000 still failed the old drafter (p 1e-6)
  constexpr std::size_t kRuns = 2000;
#else
  constexpr std::size_t kRuns = 3000;
#endif
  // the plain writer: lesson 03's sampler, the form's mask first, one character a step
  std::vector<double> plain_first(V, 0.0), plain_second(V, 0.0);
  tang::CachedPredictor<> predictor(model);
  tang::Rng plain_rng(1);
  for (std::size_t n = 0; n < kRuns; ++n) {
    std::vector<TokenId> context = tok.encode("\n山");
    const tang::Picker masked = [&](std::span<float> logits, std::size_t, tang::Rng& rng,
                                    tang::StepRecord* record) {
      const tang::LogitMask mask = mask_for(context);
      return tang::sample_next(logits, s, rng, record, [&](std::span<float> z) { mask.apply(z); });
    };
    const std::vector<TokenId> w = tang::write(predictor, context, masked, plain_rng, 2, {});
    ++plain_first[static_cast<std::size_t>(w[0])], ++plain_second[static_cast<std::size_t>(w[1])];
  }
  for (const std::size_t k : {2u, 4u}) {
    tang::ModelDrafter small(draft, s);
    tang::FormDrafter drafter(small, mask_for, V);
    std::vector<double> first(V, 0.0), second(V, 0.0);
    tang::Rng rng(2);
    for (std::size_t n = 0; n < kRuns; ++n) {
      std::vector<TokenId> context = tok.encode("\n山");
      const std::vector<TokenId> w =
          tang::write_speculative(model, drafter, context, s, rng, k, k + 1, {}, nullptr, mask_for);
      ++first[static_cast<std::size_t>(w[0])], ++second[static_cast<std::size_t>(w[1])];
    }
    for (const bool is_first : {true, false}) {
      const tang::testing::TwoSample t = tang::testing::two_sample_chi_square(
          is_first ? first : second, is_first ? plain_first : plain_second, 10);
      EXPECT_GT(t.tail(), 0.001 / 4)
          << "k " << k << ", the " << (is_first ? "first" : "second") << " character after 山: "
          << "the form and draft-model writer and the plain writer under the form differ, "
          << "chi-square " << t.statistic << " at " << t.df << " degrees of freedom (p " << t.tail()
          << ")";
    }
  }
}

}  // namespace
