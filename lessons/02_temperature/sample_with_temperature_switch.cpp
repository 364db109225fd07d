// The switch of exercise 02 (common/exercise_code.hpp): the reference solution's
// draw, or with --yours 02 yours, checked against it on the same coin.
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

TokenId sample_from(std::span<const float> probabilities, float coin) {
  static ExerciseSwitch use("02", "sample_from");
  if (!use.yours()) return reference::sample_from(probabilities, coin);
  const TokenId yours = mine::sample_from(probabilities, coin);
  if (use.compares()) {
    const auto theirs_with = [&](float c) { return reference::sample_from(probabilities, c); };
    use.check(compare_draws(yours, theirs_with(coin), coin, theirs_with), "");
  }
  return yours;
}

TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin) {
  static ExerciseSwitch use("02", "sample_with_temperature");
  if (!use.yours()) return reference::sample_with_temperature(logits, temperature, coin);
  const TokenId yours = mine::sample_with_temperature(logits, temperature, coin);
  if (use.compares()) {
    const auto theirs_with = [&](float c) {
      return reference::sample_with_temperature(logits, temperature, c);
    };
    use.check(compare_draws(yours, theirs_with(coin), coin, theirs_with),
              "T " + label(temperature));
  }
  return yours;
}

}  // namespace tang
