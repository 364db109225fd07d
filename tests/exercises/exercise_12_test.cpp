// exercise_12_test: EXERCISE 12, speculative decoding's accept/reject step
// (lessons/12_speculative/exercise/accept_drafts.cpp).
//
//   ctest --preset yours -L '^yours_12$'    your code
//   ctest --preset release -L exercise_12    the reference solution
//
// Cases worked on paper (a draft kept or not by its coin, the residual, q = 0
// where p > 0, q = p, every draft kept and the bonus, greedy), then the proof
// that matters: the first two characters written after a context follow the
// model's own distribution, by a chi-square test over 100,000 pairs at
// significance 0.001 (stand_in_chain.hpp), and the same test fails when the
// rule under test draws from p itself after a rejection.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "12_speculative/exercise/accept_drafts.hpp"
#include "chi_square.hpp"
#include "rng.hpp"
#include "stand_in_chain.hpp"

namespace {

using tang::TokenId;

// Two drafts, the first thrown away: the character after it is drawn with the
// last coin (coins[k]), not the coin of the next draft.
TEST(Exercise12, TheCharacterAfterARejectionIsDrawnWithTheLastCoin) {
  const std::vector<float> p = {0.5f, 0.5f, 0.0f, 0.0f,   // p_0
                                0.0f, 0.0f, 1.0f, 0.0f,   // p_1
                                0.0f, 0.0f, 0.0f, 1.0f};  // p_2
  const std::vector<float> q = {0.0f, 0.0f, 1.0f, 0.0f,   // q_0: sure of 2, which p_0 never writes
                                0.0f, 0.0f, 1.0f, 0.0f};  // q_1
  const std::vector<TokenId> drafted = {2, 2};
  // rejected at once; the residual is p_0 = (0.5, 0.5, 0, 0): coin 0.9 draws 1, coin 0.1 draws 0
  const tang::Verification a =
      tang::accept_drafts(p, q, drafted, std::vector<float>{0.5f, 0.1f, 0.9f}, 4);
  EXPECT_EQ(a.accepted, 0u);
  EXPECT_EQ(a.next, 1) << "drawn with coins[2] = 0.9, not coins[1] = 0.1";
  const tang::Verification b =
      tang::accept_drafts(p, q, drafted, std::vector<float>{0.5f, 0.9f, 0.1f}, 4);
  EXPECT_EQ(b.next, 0) << "drawn with coins[2] = 0.1, not coins[1] = 0.9";
}

TEST(Exercise12, PaperCases) {
  const std::vector<float> p = {0.5f, 0.3f, 0.2f, 0.0f,
                                0.1f, 0.2f, 0.3f, 0.4f};  // p_0, p_1 (bonus)
  const std::vector<float> uniform = {0.25f, 0.25f, 0.25f, 0.25f};
  const auto verification = [&](const std::vector<float>& q, TokenId d, float coin, float last) {
    const std::vector<float> coins = {coin, last};
    return tang::accept_drafts(p, q, std::vector<TokenId>{d}, coins, 4);
  };
  // p/q = 1.2 and 2: kept whatever the coin; the bonus from p_1
  EXPECT_EQ(verification(uniform, 1, 0.99f, 0.05f).accepted, 1u);
  EXPECT_EQ(verification(uniform, 0, 0.99f, 0.95f).next, 3) << "the bonus, from p_1";
  // p/q = 0.8: kept below the coin 0.8, else max(0, p - q) = (0.25, 0.05, 0, 0) / 0.3
  EXPECT_EQ(verification(uniform, 2, 0.79f, 0.5f).accepted, 1u);
  EXPECT_EQ(verification(uniform, 2, 0.8f, 0.5f).accepted, 0u)
      << "a coin of exactly p/q = 0.8 is not below it: a coin uniform in [0, 1) is below 0.8 "
         "with probability 0.8, and on or below it with a little more";
  const tang::Verification rejected = verification(uniform, 2, 0.81f, 0.9f);
  EXPECT_EQ(rejected.accepted, 0u);
  EXPECT_EQ(rejected.next, 1)
      << "after the rejection the next character is drawn from (0.25, 0.05, 0, 0) renormalised: "
         "(0.833, 0.167, 0, 0), where the coin 0.9 falls on character 1; unrenormalised the "
         "values sum to 0.3 and the coin falls past them all";
  EXPECT_EQ(verification(uniform, 2, 0.81f, 0.5f).next, 0);
  // a character q never draws can never be drawn after a rejection at it: p - q is 0 there
  const std::vector<float> sure_of_2 = {0.0f, 0.0f, 1.0f, 0.0f};  // a drafter sure of 2
  EXPECT_EQ(verification(sure_of_2, 2, 0.19f, 0.0f).accepted, 1u)
      << "kept with probability p(2) = 0.2";
  const tang::Verification not_2 =
      verification(sure_of_2, 2, 0.21f, 0.7f);  // (0.5, 0.3, 0, 0) / 0.8
  EXPECT_EQ(not_2.accepted, 0u);
  EXPECT_EQ(not_2.next, 1) << "(0.5, 0.3, 0, 0) renormalised is (0.625, 0.375, 0, 0): the coin "
                              "0.7 falls on character 1";
  // q = p: every draft is kept
  const std::vector<float> same(p.begin(), p.begin() + 4);
  for (const float coin : {0.0f, 0.5f, 0.999f})
    EXPECT_EQ(verification(same, 1, coin, 0.1f).accepted, 1u);
  // a draft q is sure of and p gives 0.2: a coin past 0.2 throws it away
  EXPECT_EQ(verification(sure_of_2, 2, 0.999f, 0.1f).accepted, 0u);
  // q = 0 where p > 0: the draft (drawn elsewhere) is always kept
  const std::vector<float> zero_at_1 = {0.5f, 0.0f, 0.5f, 0.0f};
  EXPECT_EQ(verification(zero_at_1, 1, 0.999f, 0.1f).accepted, 1u);
  // greedy: p and q certain; kept when they agree, else the model's argmax
  const std::vector<float> greedy_p = {0, 0, 1, 0, 0, 1, 0, 0}, greedy_q_2 = {0, 0, 1, 0},
                           greedy_q_3 = {0, 0, 0, 1};
  EXPECT_EQ(tang::accept_drafts(greedy_p, greedy_q_2, std::vector<TokenId>{2},
                                std::vector<float>{0.7f, 0.3f}, 4)
                .next,
            1)
      << "kept, then the bonus: the argmax of p_1";
  const tang::Verification disagree = tang::accept_drafts(
      greedy_p, greedy_q_3, std::vector<TokenId>{3}, std::vector<float>{0.0f, 0.99f}, 4);
  EXPECT_EQ(disagree.accepted, 0u)
      << "coin 0 and p_0(3) = 0: a draft the model gives 0 is never kept, whatever the coin";
  EXPECT_EQ(disagree.next, 2) << "the model's argmax";
  EXPECT_THROW(tang::accept_drafts(p, uniform, std::vector<TokenId>{1, 2},
                                   std::vector<float>{0.1f, 0.1f}, 4),
               std::invalid_argument);
}

// The chain of 8 characters (stand_in_chain.hpp) stands in for a model (p)
// and a drafter (q).
using tang::testing::ChainTable;
constexpr std::size_t kV = tang::testing::kChainV;

// The rule under test with its correction taken out: where it threw a draft
// away, the next character is drawn again, with the same last coin, from p
// itself rather than from what p has more of than q.
tang::Verification without_correction(std::span<const float> p, std::span<const float> q,
                                      std::span<const TokenId> drafted,
                                      std::span<const float> coins, std::size_t V) {
  tang::Verification v = tang::accept_drafts(p, q, drafted, coins, V);
  if (v.accepted < drafted.size())
    v.next = tang::sample_from(p.subspan(v.accepted * V, V), coins[drafted.size()]);
  return v;
}

TEST(Exercise12, TheTextFollowsTheModelsDistributionWhateverTheDrafter) {
  tang::Rng rng(7);
  const ChainTable p = tang::testing::random_chain(rng, 1.0f),
                   q = tang::testing::random_chain(rng, 1.0f);
  const double limit = tang::testing::chi_square_quantile(kV * kV - 1, 0.001);
  EXPECT_NEAR(limit, 103.44, 0.01) << "chi-square's 0.999 quantile at 63 degrees of freedom";
  tang::testing::ChainDrafter drafter(q);
  for (const std::size_t k : {1u, 2u, 4u}) {
    const tang::testing::PairStatistic s = tang::testing::chi_square_of_two_characters(
        p, drafter, k, tang::accept_drafts, 100000, 2024);
    EXPECT_EQ(s.df, 63);
    EXPECT_LT(s.chi, limit)
        << "k " << k << ": the first two characters written are not the model's. Over 100,000 "
        << "pairs their chi-square is " << s.chi << ", above " << limit
        << ", which text drawn from p stays under 999 times in 1,000. Look at what decides a "
           "draft (which coin, and against what), what the character after a rejection is drawn "
           "from, and with which coin";
    // with the correction replaced by a plain draw from p, the pairs are p's no more
    const double broken =
        tang::testing::chi_square_of_two_characters(p, drafter, k, without_correction, 100000, 2024)
            .chi;
    EXPECT_GT(broken, limit) << "k " << k << ": the test must see a missing correction";
  }
}

}  // namespace
