#include "temperature.hpp"

#include <algorithm>

#include "next_char.hpp"

namespace tang {

void apply_temperature(std::span<float> logits, float temperature) {
  for (float& z : logits) z /= temperature;
}

TokenId sample_from(std::span<const float> probabilities, float coin) {
  float total = 0.0f;
  TokenId last_possible = 0;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    if (probabilities[i] <= 0.0f) continue;
    total += probabilities[i];
    last_possible = static_cast<TokenId>(i);
    if (coin < total) return last_possible;
  }
  return last_possible;
}

TokenId argmax(std::span<const float> values) {
  return static_cast<TokenId>(std::max_element(values.begin(), values.end()) - values.begin());
}

TokenId sample_with_temperature(std::span<float> logits, float temperature, Rng& rng) {
  if (temperature == 0.0f) return argmax(logits);
  apply_temperature(logits, temperature);
  softmax_in_place(logits);
  return sample_from(logits, rng.uniform());
}

}  // namespace tang
