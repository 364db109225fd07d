// distribution.hpp: how spread out a next-character distribution is, in numbers.
//
//   entropy H = -sum_i p_i ln p_i   (nats; 0 when one character has it all)
//   exp(H)    how many equally likely characters would be this uncertain:
//             "how many characters the model is really choosing between"
//   top 20    the probability the 20 most likely characters hold together
//   nucleus   how many of the most likely characters it takes to reach p = 0.9
//             (the set top-p keeps, lesson 03)
#pragma once

#include <cstddef>
#include <iosfwd>
#include <span>

#include "tokenizer.hpp"

namespace tang {

struct Spread {
  double entropy = 0.0;     // nats
  double choices = 0.0;     // exp(entropy)
  double top20 = 0.0;       // share of the 20 most likely
  std::size_t nucleus = 0;  // characters in the smallest set reaching 0.9
};

// Sums in double, largest probabilities first.
Spread spread_of(std::span<const float> probabilities);

// The n most likely characters as a bar chart, one line each:
//   "      人 ████████▌ 17.2%"   (one block per 2%)
void print_bars(std::ostream& out, const Tokenizer& tokenizer, std::span<const float> probabilities,
                std::size_t n);

}  // namespace tang
