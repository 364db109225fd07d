// stand_in_chain.hpp: a Markov chain of 8 characters that stands in for a model
// (p) and for a drafter (q) in lesson 12's sampling tests: the next character's
// distribution depends on the last one only, so the probability of any text is
// known exactly.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"  // sample_from
#include "12_speculative/drafter.hpp"
#include "12_speculative/exercise/accept_drafts.hpp"  // Verification
#include "rng.hpp"

namespace tang::testing {

constexpr std::size_t kChainV = 8;
using ChainTable = std::array<std::array<float, kChainV>, kChainV>;  // [previous][next]

// Each row a softmax of normal draws times `sharpness` (larger: surer rows).
inline ChainTable random_chain(Rng& rng, float sharpness) {
  ChainTable t{};
  for (auto& row : t) {
    float total = 0;
    for (float& x : row) total += x = std::exp(sharpness * rng.normal());
    for (float& x : row) x /= total;
  }
  return t;
}

// Pearson's statistic of `seen` pairs (a * kChainV + b: the first two characters
// written after the character 0) against the chain's own probabilities of them,
// and its degrees of freedom (the pairs the chain can write, less one). A pair
// the chain never writes, written, makes it infinite.
struct PairStatistic {
  double chi = 0;
  double df = -1;
};

inline PairStatistic chi_square_of_pairs(const std::vector<double>& seen, const ChainTable& p) {
  double draws = 0;
  for (const double n : seen) draws += n;
  PairStatistic s;
  for (std::size_t a = 0; a < kChainV; ++a) {
    for (std::size_t b = 0; b < kChainV; ++b) {
      const double expected = draws * p[0][a] * p[a][b], n = seen[a * kChainV + b];
      if (expected == 0) {
        if (n > 0) s.chi = INFINITY;
        continue;
      }
      s.chi += (n - expected) * (n - expected) / expected;
      s.df += 1;
    }
  }
  return s;
}

// A drafter whose guesses are drawn from the chain's table q, one after another.
class ChainDrafter : public Drafter {
 public:
  explicit ChainDrafter(const ChainTable& q) : q_(q) {}
  void draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
             std::vector<TokenId>& drafted, std::vector<float>& q) override {
    drafted.clear(), q.clear();
    TokenId last = context.back();
    for (std::size_t i = 0; i < k; ++i) {
      const auto& row = q_[static_cast<std::size_t>(last)];
      q.insert(q.end(), row.begin(), row.end());
      drafted.push_back(last = sample_from(row, rng.uniform()));
    }
  }

 private:
  const ChainTable& q_;
};

// An accept/reject rule: tang::accept_drafts, or a broken one.
using Rule = Verification (*)(std::span<const float>, std::span<const float>,
                              std::span<const TokenId>, std::span<const float>, std::size_t);

// Lesson 12's writer on the chain, `draws` times: rounds of the drafter's up to k
// drafts, p's rows after each, and the rule, until two characters are written
// after the character 0; the statistic of those pairs against p's.
inline PairStatistic chi_square_of_two_characters(const ChainTable& p, Drafter& drafter,
                                                  std::size_t k, Rule rule, std::size_t draws,
                                                  std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> seen(kChainV * kChainV, 0.0);
  std::vector<TokenId> drafted;
  std::vector<float> q_rows, p_rows;
  for (std::size_t n = 0; n < draws; ++n) {
    std::vector<TokenId> text = {0};
    while (text.size() < 3) {
      drafter.draft(text, k, rng, drafted, q_rows);
      p_rows.clear();
      TokenId last = text.back();
      for (std::size_t i = 0; i <= drafted.size(); ++i) {
        const auto& row = p[static_cast<std::size_t>(last)];
        p_rows.insert(p_rows.end(), row.begin(), row.end());
        if (i < drafted.size()) last = drafted[i];
      }
      std::vector<float> coins(drafted.size() + 1);
      for (float& c : coins) c = rng.uniform();
      const Verification v = rule(p_rows, q_rows, drafted, coins, kChainV);
      text.insert(text.end(), drafted.begin(), drafted.begin() + static_cast<long>(v.accepted));
      text.push_back(v.next);
    }
    ++seen[static_cast<std::size_t>(text[1]) * kChainV + static_cast<std::size_t>(text[2])];
  }
  return chi_square_of_pairs(seen, p);
}

}  // namespace tang::testing
