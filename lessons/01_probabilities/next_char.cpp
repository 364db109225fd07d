#include "next_char.hpp"

#include <algorithm>
#include <cmath>

#include "vector_math.hpp"

namespace tang {

void softmax_in_place(std::span<float> logits) {
  // p_i = exp(z_i - max) / sum_j exp(z_j - max): subtracting the largest logit
  // keeps exp from overflowing and does not change the result. -inf gives 0.
  float* z = logits.data();
  const float max = max_of(z, logits.size());
  const float sum = exp_minus_max_and_sum(z, z, logits.size(), max);
  const float scale = 1.0f / sum;  // one division, then multiplications (much cheaper)
  for (float& p : logits) p *= scale;
}

std::vector<float> next_char_probabilities(Decoder& decoder, std::span<const TokenId> prompt_ids) {
  const auto logits = decoder.next_logits(prompt_ids);  // (1, V)
  std::vector<float> probabilities(logits.begin(), logits.end());
  softmax_in_place(probabilities);
  return probabilities;
}

std::vector<Candidate> most_likely(std::span<const float> probabilities, std::size_t n) {
  std::vector<Candidate> all;
  all.reserve(probabilities.size());
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    all.push_back({static_cast<TokenId>(i), probabilities[i]});
  }
  n = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const Candidate& a, const Candidate& b) {
                      return a.probability != b.probability ? a.probability > b.probability
                                                            : a.id < b.id;
                    });
  all.resize(n);
  return all;
}

}  // namespace tang
