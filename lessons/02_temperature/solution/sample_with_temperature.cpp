// SOLUTION to exercise 02 (the learner's file is exercise/sample_with_temperature.cpp,
// whose comment specifies the behaviour).
//
//   logits / T  ->  softmax  ->  one uniform "coin" in [0, 1)  ->  a character
//
// T < 1 widens the gaps between scores (safer, more repetitive text); T > 1
// narrows them (bolder, and rare characters get a real chance).

#include "02_temperature/exercise/sample_with_temperature.hpp"

#include <algorithm>
#include <vector>

#include "sampling.hpp"

namespace tang::reference {

TokenId sample_from(std::span<const float> probabilities, float coin) {
  // Character i owns the slice [total before i, total after i) of [0, 1).
  float total = 0.0f;
  TokenId last_possible = 0;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    if (probabilities[i] <= 0.0f) continue;  // no slice at all
    total += probabilities[i];
    last_possible = static_cast<TokenId>(i);
    if (coin < total) return last_possible;
  }
  return last_possible;  // rounding left the total just under the coin
}

TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin) {
  if (temperature == 0.0f) return argmax(logits);  // greedy; the coin is not needed
  std::vector<float> probabilities(logits.begin(), logits.end());
  // (z - max) / T: the largest becomes 0 and nothing overflows, however small T is
  const float max = *std::max_element(probabilities.begin(), probabilities.end());
  for (float& z : probabilities) z = (z - max) / temperature;
  softmax_in_place(probabilities);
  return sample_from(probabilities, coin);
}

}  // namespace tang::reference
