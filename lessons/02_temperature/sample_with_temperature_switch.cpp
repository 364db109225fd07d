// The switch of exercise 02 (common/exercise_code.hpp): the reference solution's
// draw, or with --yours 02 yours, checked against it on the same coin.
#include <functional>
#include <string>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

// Two draws from one coin: the same character; or another, which a coin within
// 1e-4 of this one makes the reference draw too (a rounding); or not.
Verdict compare_draws(TokenId yours, TokenId theirs, float coin,
                      const std::function<TokenId(float)>& theirs_with) {
  if (yours == theirs) return {};
  constexpr float kStep = 1.0f / 16777216.0f;  // 2^-24: coins are multiples of it
  constexpr int kReach = 1678;                 // 1678 steps: 1e-4
  const std::string drawn = "coin " + scientific(coin) + ": yours " + character_name(yours) +
                            ", theirs " + character_name(theirs);
  for (int step = 1; step <= kReach; ++step) {
    for (const float sign : {-1.0f, 1.0f}) {
      const float moved = coin + sign * static_cast<float>(step) * kStep;
      if (moved >= 0.0f && moved < 1.0f && theirs_with(moved) == yours) {
        return {Verdict::kRounding, drawn + "; a coin " +
                                        scientific(static_cast<float>(step) * kStep) +
                                        " away makes theirs " + character_name(yours) + " too"};
      }
    }
  }
  return {Verdict::kDisagrees,
          drawn + "; no coin within 1e-04 makes theirs " + character_name(yours)};
}

TokenId sample_from(std::span<const float> probabilities, float coin) {
  static ExerciseSwitch use("02", "sample_from");
  const auto theirs_with = [&](float c) { return reference::sample_from(probabilities, c); };
  return use.returns(
      reference::sample_from, mine::sample_from,
      [&](TokenId yours, TokenId theirs) {
        return compare_draws(yours, theirs, coin, theirs_with);
      },
      [] { return std::string(); }, probabilities, coin);
}

TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin) {
  static ExerciseSwitch use("02", "sample_with_temperature");
  const auto theirs_with = [&](float c) {
    return reference::sample_with_temperature(logits, temperature, c);
  };
  return use.returns(
      reference::sample_with_temperature, mine::sample_with_temperature,
      [&](TokenId yours, TokenId theirs) {
        return compare_draws(yours, theirs, coin, theirs_with);
      },
      [&] { return "T " + label(temperature); }, logits, temperature, coin);
}

}  // namespace tang
