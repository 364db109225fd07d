#include "02_temperature/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "lesson.hpp"  // printable

namespace tang {

namespace {

// Ids from most to least likely (ties: smaller id first).
std::vector<TokenId> by_probability(std::span<const float> probabilities) {
  std::vector<TokenId> ids(probabilities.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [&](TokenId a, TokenId b) {
    return probabilities[static_cast<std::size_t>(a)] > probabilities[static_cast<std::size_t>(b)];
  });
  return ids;
}

}  // namespace

Spread spread_of(std::span<const float> probabilities) {
  Spread s;
  const std::vector<TokenId> ids = by_probability(probabilities);
  double running = 0.0;
  for (std::size_t rank = 0; rank < ids.size(); ++rank) {
    const double p = probabilities[static_cast<std::size_t>(ids[rank])];
    if (p > 0.0) s.entropy -= p * std::log(p);  // 0 ln 0 = 0
    if (rank < 20) s.top20 += p;
    if (running < 0.9) s.nucleus = rank + 1;  // still short of 0.9 before this one
    running += p;
  }
  s.choices = std::exp(s.entropy);
  return s;
}

void print_bars(std::ostream& out, const Tokenizer& tokenizer, std::span<const float> probabilities,
                std::size_t n) {
  const std::vector<TokenId> ids = by_probability(probabilities);
  for (std::size_t rank = 0; rank < n && rank < ids.size(); ++rank) {
    const double p = probabilities[static_cast<std::size_t>(ids[rank])];
    const auto percent_units = static_cast<std::size_t>(std::lround(p * 100.0));  // one per 1%
    std::string bar;
    for (std::size_t i = 0; i < percent_units / 2; ++i) bar += "█";  // one block per 2%
    if (percent_units % 2 == 1) bar += "▌";
    char percent[16];
    std::snprintf(percent, sizeof percent, "%5.1f%%", 100.0 * p);
    out << "      " << printable(tokenizer.character(ids[rank])) << " " << percent << " " << bar
        << "\n";
  }
}

}  // namespace tang
