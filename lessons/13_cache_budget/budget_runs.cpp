#include "13_cache_budget/budget_runs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tang {

namespace {

// log softmax of one row, in double: the log-probabilities (V).
void log_softmax(std::span<const float> logits, double* out) {
  const float largest = *std::max_element(logits.begin(), logits.end());
  double sum = 0.0;
  for (float x : logits) sum += std::exp(static_cast<double>(x - largest));
  const double log_sum = std::log(sum) + largest;
  for (std::size_t c = 0; c < logits.size(); ++c) out[c] = static_cast<double>(logits[c]) - log_sum;
}

}  // namespace

std::vector<std::vector<TokenId>> consecutive_texts(std::span<const TokenId> stream,
                                                    std::size_t length, std::size_t count) {
  std::vector<std::vector<TokenId>> texts;
  for (std::size_t at = 0; texts.size() < count && at + length <= stream.size(); at += length)
    texts.emplace_back(stream.begin() + static_cast<std::ptrdiff_t>(at),
                       stream.begin() + static_cast<std::ptrdiff_t>(at + length));
  return texts;
}

std::vector<double> reference_log_probs(const GPT& model, std::span<const TokenId> text) {
  const std::size_t V = model.config().vocab_size;
  std::vector<double> out((text.size() - 1) * V);
  KVCache cache(model.config());
  Activations acts = step_activations(model.config(), 1);
  for (std::size_t p = 0; p + 1 < text.size(); ++p) {
    const View<2> logits = forward_with_cache(model, text.subspan(p, 1), p, cache, acts);
    log_softmax({logits.data(), V}, out.data() + p * V);
  }
  return out;
}

TextScore score_text(const GPT& model, std::span<const TokenId> text,
                     std::span<const double> log_probs, std::size_t from,
                     const std::function<std::span<const float>(TokenId)>& step) {
  const std::size_t V = model.config().vocab_size;
  std::vector<double> mine(V);
  TextScore score;
  std::size_t counted = 0;
  for (std::size_t p = 0; p + 1 < text.size(); ++p) {
    const std::span<const float> logits = step(text[p]);
    if (p < from) continue;
    log_softmax(logits, mine.data());
    const double* theirs = log_probs.data() + p * V;
    const auto next = static_cast<std::size_t>(text[p + 1]);
    score.loss -= mine[next];
    score.reference -= theirs[next];
    double kl = 0.0;
    for (std::size_t c = 0; c < V; ++c) kl += std::exp(theirs[c]) * (theirs[c] - mine[c]);
    score.kl += kl;
    ++counted;
  }
  if (counted > 0) {
    score.loss /= static_cast<double>(counted);
    score.reference /= static_cast<double>(counted);
    score.kl /= static_cast<double>(counted);
  }
  return score;
}

std::vector<TokenId> write_greedily(Predictor& predictor, std::span<const TokenId> opening,
                                    std::size_t context) {
  std::vector<TokenId> text(opening.begin(), opening.end());
  while (text.size() < context) {
    const std::span<const float> logits = predictor.next_logits(text);
    text.push_back(
        static_cast<TokenId>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
  }
  return {text.begin() + static_cast<std::ptrdiff_t>(opening.size()), text.end()};
}

std::size_t matching_prefix(std::span<const TokenId> a, std::span<const TokenId> b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace tang
