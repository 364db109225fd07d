// SOLUTION to exercise 07b (the learner's file is exercise/beam_step.cpp,
// whose comment specifies the behaviour).

#include "07_verse/exercise/beam_step.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tang::reference {

std::vector<BeamChoice> beam_step(std::span<const double> scores,
                                  std::span<const std::vector<float>> log_probs,
                                  std::span<const LogitMask> allowed, std::size_t width) {
  if (log_probs.size() != scores.size() || allowed.size() != scores.size()) {
    throw std::invalid_argument("beam_step: " + std::to_string(scores.size()) + " scores, " +
                                std::to_string(log_probs.size()) + " rows of log_probs, " +
                                std::to_string(allowed.size()) + " masks");
  }
  if (width == 0) throw std::invalid_argument("beam_step: width 0 keeps nothing");
  std::vector<BeamChoice> extensions;
  for (std::size_t b = 0; b < scores.size(); ++b) {
    if (log_probs[b].size() != allowed[b].size()) {
      throw std::invalid_argument("beam_step: beam " + std::to_string(b) + " has " +
                                  std::to_string(log_probs[b].size()) + " log-probabilities for " +
                                  std::to_string(allowed[b].size()) + " characters");
    }
    for (std::size_t t = 0; t < log_probs[b].size(); ++t) {
      const auto token = static_cast<TokenId>(t);
      const double score = scores[b] + static_cast<double>(log_probs[b][t]);
      if (allowed[b].allows(token) && score != -INFINITY) extensions.push_back({b, token, score});
    }
  }
  const auto better = [](const BeamChoice& x, const BeamChoice& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.beam != y.beam) return x.beam < y.beam;
    return x.token < y.token;
  };
  const std::size_t keep = std::min(width, extensions.size());
  std::partial_sort(extensions.begin(), extensions.begin() + static_cast<std::ptrdiff_t>(keep),
                    extensions.end(), better);
  extensions.resize(keep);
  return extensions;
}

}  // namespace tang::reference
