#include "min_p_sampler.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "exercise/min_p_penalty.hpp"            // exercise 03b: repetition_penalty, min_p_filter
#include "exercise/sample_with_temperature.hpp"  // exercise 02: sample_from
#include "lesson.hpp"                            // label
#include "sampling.hpp"

namespace tang {

void min_p_probabilities(std::span<float> logits, std::span<const TokenId> recent,
                         const MinPSettings& s) {
  mine::repetition_penalty(logits, recent, s.penalty);  // on the model's own logits
  // --trace: the shares it prints are of the penalised distribution
  if (s.trace && !s.trace->started()) s.trace->start(logits, s.temperature);
  const float max = *std::max_element(logits.begin(), logits.end());
  for (float& z : logits) z = (z - max) / s.temperature;  // as sample_next does
  softmax_in_place(logits);
  if (s.min_p > 0.0f) {  // 0 = off
    mine::min_p_filter(logits, s.min_p);
    if (s.trace) s.trace->filtered_probabilities("min-p " + label(s.min_p), logits);
  }
}

TokenId sample_min_p(std::span<float> logits, std::span<const TokenId> recent,
                     const MinPSettings& s, Rng& rng) {
  if (s.temperature == 0.0f) {  // greedy, on the penalised logits
    mine::repetition_penalty(logits, recent, s.penalty);
    if (s.trace && !s.trace->started()) s.trace->start(logits, 0.0f);
    const TokenId best = argmax(logits);
    if (s.trace) s.trace->drawn(-1.0f, best);
    return best;
  }
  min_p_probabilities(logits, recent, s);
  const float coin = rng.uniform();
  const TokenId next = mine::sample_from(logits, coin);
  if (s.trace) s.trace->drawn(coin, next);
  return next;
}

Picker min_p_picker(const MinPSettings& settings) {
  // the characters this picker chose in the text being written, oldest first
  auto recent = std::make_shared<std::vector<TokenId>>();
  return [settings, recent](std::span<float> logits, std::size_t written, Rng& rng) {
    if (written == 0) recent->clear();  // a new poem
    const TokenId next = sample_min_p(logits, *recent, settings, rng);
    recent->push_back(next);
    if (recent->size() > settings.last_n) recent->erase(recent->begin());
    return next;
  };
}

}  // namespace tang
