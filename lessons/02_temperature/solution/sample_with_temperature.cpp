// SOLUTION to exercise 02 (the learner's file is exercise/sample_with_temperature.cpp,
// whose comment specifies the behaviour). The lesson's own sampler already does
// every step, so the solution is the lesson's pieces in order, on a copy.

#include "exercise/sample_with_temperature.hpp"

#include <vector>

#include "next_char.hpp"
#include "temperature.hpp"

namespace tang::mine {

TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin) {
  if (temperature == 0.0f) return argmax(logits);  // greedy; the coin is not needed
  std::vector<float> probabilities(logits.begin(), logits.end());
  apply_temperature(probabilities, temperature);  // z = logits / T
  softmax_in_place(probabilities);                // minus the max, exp, normalise
  return sample_from(probabilities, coin);        // first running total > coin
}

}  // namespace tang::mine
