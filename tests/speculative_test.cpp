// speculative_test: lesson 12's pieces. The sampler's distribution draws what
// lesson 03's sampler draws; the accept/reject rule on paper cases, and its
// text's distribution by a chi-square test (and the same test failing when a
// rejection draws from p instead of max(0, p - q)); at temperature 0 the
// speculative text is lesson 06's greedy text for every k and drafter.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "12_speculative/accept_drafts.hpp"
#include "12_speculative/ngram_drafter.hpp"
#include "12_speculative/sampling_distribution.hpp"
#include "12_speculative/speculative_writer.hpp"
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

// p and q rows of V = 4 for one draft.
TEST(AcceptDrafts, PaperCases) {
  const std::vector<float> p = {0.5f, 0.3f, 0.2f, 0.0f,
                                0.1f, 0.2f, 0.3f, 0.4f};  // p_0, p_1 (bonus)
  const std::vector<float> uniform = {0.25f, 0.25f, 0.25f, 0.25f};
  const auto verdict = [&](const std::vector<float>& q, TokenId d, float coin, float last) {
    const std::vector<float> coins = {coin, last};
    return tang::accept_drafts(p, q, std::vector<TokenId>{d}, coins, 4);
  };
  // p/q = 1.2 and 2: kept whatever the coin; the bonus from p_1
  EXPECT_EQ(verdict(uniform, 1, 0.99f, 0.05f).accepted, 1u);
  EXPECT_EQ(verdict(uniform, 0, 0.99f, 0.95f).next, 3) << "the bonus, from p_1";
  // p/q = 0.8: kept below the coin 0.8, else max(0, p - q) = (0.25, 0.05, 0, 0) / 0.3
  EXPECT_EQ(verdict(uniform, 2, 0.79f, 0.5f).accepted, 1u);
  const tang::Verdict rejected = verdict(uniform, 2, 0.81f, 0.9f);
  EXPECT_EQ(rejected.accepted, 0u);
  EXPECT_EQ(rejected.next, 1) << "0.9 is past 0.25 / 0.3";
  EXPECT_EQ(verdict(uniform, 2, 0.81f, 0.5f).next, 0);
  // a character q never draws can never be drawn after a rejection at it: p - q is 0 there
  const std::vector<float> sure_of_2 = {0.0f, 0.0f, 1.0f, 0.0f};  // a drafter sure of 2
  EXPECT_EQ(verdict(sure_of_2, 2, 0.19f, 0.0f).accepted, 1u) << "kept with probability p(2) = 0.2";
  const tang::Verdict not_2 = verdict(sure_of_2, 2, 0.21f, 0.7f);  // (0.5, 0.3, 0, 0) / 0.8
  EXPECT_EQ(not_2.accepted, 0u);
  EXPECT_EQ(not_2.next, 1) << "0.7 is past 0.5 / 0.8";
  // q = p: every draft is kept
  const std::vector<float> same(p.begin(), p.begin() + 4);
  for (const float coin : {0.0f, 0.5f, 0.999f})
    EXPECT_EQ(verdict(same, 1, coin, 0.1f).accepted, 1u);
  // q = 0 where p > 0: the draft (drawn elsewhere) is always kept
  EXPECT_EQ(verdict(sure_of_2, 2, 0.999f, 0.1f).accepted, 0u);
  const std::vector<float> zero_at_1 = {0.5f, 0.0f, 0.5f, 0.0f};
  EXPECT_EQ(verdict(zero_at_1, 1, 0.999f, 0.1f).accepted, 1u);
  // greedy: p and q certain; kept when they agree, else the model's argmax
  const std::vector<float> greedy_p = {0, 0, 1, 0, 0, 1, 0, 0}, greedy_q_2 = {0, 0, 1, 0},
                           greedy_q_3 = {0, 0, 0, 1};
  EXPECT_EQ(tang::accept_drafts(greedy_p, greedy_q_2, std::vector<TokenId>{2},
                                std::vector<float>{0.7f, 0.3f}, 4)
                .next,
            1)
      << "kept, then the bonus: the argmax of p_1";
  const tang::Verdict disagree = tang::accept_drafts(greedy_p, greedy_q_3, std::vector<TokenId>{3},
                                                     std::vector<float>{0.0f, 0.99f}, 4);
  EXPECT_EQ(disagree.accepted, 0u);
  EXPECT_EQ(disagree.next, 2) << "the model's argmax";
  EXPECT_THROW(tang::accept_drafts(p, uniform, std::vector<TokenId>{1, 2},
                                   std::vector<float>{0.1f, 0.1f}, 4),
               std::invalid_argument);
}

// A Markov chain of V characters stands in for a model (p) and a drafter (q):
// the next character's distribution depends on the last one.
constexpr std::size_t kV = 8;
using Table = std::array<std::array<float, kV>, kV>;  // [previous][next]

Table random_table(tang::Rng& rng, float sharpness) {
  Table t{};
  for (auto& row : t) {
    float total = 0;
    for (float& x : row) total += x = std::exp(sharpness * rng.normal());
    for (float& x : row) x /= total;
  }
  return t;
}

using Rule = tang::Verdict (*)(std::span<const float>, std::span<const float>,
                               std::span<const TokenId>, std::span<const float>, std::size_t);

// The rule with its correction taken out: a rejection draws from p itself.
tang::Verdict draws_from_p(std::span<const float> p, std::span<const float> q,
                           std::span<const TokenId> drafted, std::span<const float> coins,
                           std::size_t V) {
  const std::size_t k = drafted.size();
  for (std::size_t i = 0; i < k; ++i) {
    const auto d = static_cast<std::size_t>(drafted[i]);
    if (coins[i] * q[i * V + d] < p[i * V + d]) continue;
    return {i, tang::sample_from(p.subspan(i * V, V), coins[k])};
  }
  return {k, tang::sample_from(p.subspan(k * V, V), coins[k])};
}

// The chi-square statistic of the first two characters written after the
// character 0, `draws` times, rounds of k drafts, against p's own distribution.
double chi_square_of_two_characters(const Table& p, const Table& q, std::size_t k, Rule rule,
                                    std::size_t draws) {
  tang::Rng rng(2024);
  std::vector<double> seen(kV * kV, 0.0);
  for (std::size_t n = 0; n < draws; ++n) {
    std::vector<TokenId> text = {0};
    while (text.size() < 3) {  // rounds until two characters are written
      std::vector<TokenId> drafted;
      std::vector<float> q_rows, p_rows;
      TokenId last = text.back();
      for (std::size_t i = 0; i < k; ++i) {
        p_rows.insert(p_rows.end(), p[last].begin(), p[last].end());
        q_rows.insert(q_rows.end(), q[last].begin(), q[last].end());
        last = tang::sample_from(q[last], rng.uniform());
        drafted.push_back(last);
      }
      p_rows.insert(p_rows.end(), p[last].begin(), p[last].end());
      std::vector<float> coins(k + 1);
      for (float& c : coins) c = rng.uniform();
      const tang::Verdict v = rule(p_rows, q_rows, drafted, coins, kV);
      text.insert(text.end(), drafted.begin(), drafted.begin() + static_cast<long>(v.accepted));
      text.push_back(v.next);
    }
    ++seen[static_cast<std::size_t>(text[1]) * kV + static_cast<std::size_t>(text[2])];
  }
  double chi = 0;
  for (std::size_t a = 0; a < kV; ++a) {
    for (std::size_t b = 0; b < kV; ++b) {
      const double expected = double(draws) * p[0][a] * p[a][b];
      chi += (seen[a * kV + b] - expected) * (seen[a * kV + b] - expected) / expected;
    }
  }
  return chi;
}

// The chi-square statistic that 63 degrees of freedom (64 cells) exceed with
// probability 0.001 (Wilson and Hilferty's approximation: 103.4).
double chi_square_at_one_in_a_thousand(double df) {
  const double z = 3.0902;  // the normal's 0.999 quantile
  return df * std::pow(1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df)), 3);
}

TEST(AcceptDrafts, TheTextFollowsTheModelsDistributionWhateverTheDrafter) {
  tang::Rng rng(7);
  const Table p = random_table(rng, 1.0f), q = random_table(rng, 1.0f);
  const double limit = chi_square_at_one_in_a_thousand(kV * kV - 1);
  EXPECT_NEAR(limit, 103.4, 0.5);
  for (const std::size_t k : {1u, 2u, 4u}) {
    const double chi = chi_square_of_two_characters(p, q, k, tang::accept_drafts, 100000);
    EXPECT_LT(chi, limit) << "k " << k << ": 100,000 pairs, significance 0.001";
    // with the correction replaced by a plain draw from p, the pairs are p's no more
    const double broken = chi_square_of_two_characters(p, q, k, draws_from_p, 100000);
    EXPECT_GT(broken, limit) << "k " << k;
  }
}

// At temperature 0 the text is lesson 06's greedy text, whatever the drafter
// and k, within the context and past it.
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
    for (tang::Drafter* drafter :
         {static_cast<tang::Drafter*>(&ngram), static_cast<tang::Drafter*>(&comma)}) {
      for (std::size_t k = 1; k <= 8; ++k) {
        std::vector<TokenId> context = tok.encode("\n" + opening);
        tang::Rng rng(5);
        tang::SpeculativeCounts counts;
        const std::vector<TokenId> written = tang::write_speculative(
            model, *drafter, context, greedy, rng, k, max_new, tok.newline(), &counts);
        EXPECT_EQ(tok.decode(written), tok.decode(lesson))
            << "k " << k << (drafter == &ngram ? ", n-gram" : ", always a comma") << ", opening '"
            << opening.substr(0, 12) << "'";
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

}  // namespace
