#include "03_topk_topp/min_p_sampler.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "number_text.hpp"  // label
#include "sampling.hpp"

namespace tang {

void min_p_probabilities(std::span<float> logits, std::span<const TokenId> recent,
                         const MinPSettings& s, StepRecord* record) {
  repetition_penalty(logits, recent, s.penalty);  // exercise 03b, on the model's own logits
  // --trace: the shares it prints are of the penalised distribution
  if (record) record->begin(logits, s.temperature);
  const float max = *std::max_element(logits.begin(), logits.end());
  for (float& z : logits) z = (z - max) / s.temperature;  // as sample_next does
  softmax_in_place(logits);
  if (s.min_p > 0.0f) {             // 0 = off
    min_p_filter(logits, s.min_p);  // exercise 03b
    if (record) record->removed_probabilities("min-p " + label(s.min_p), logits);
  }
}

TokenId sample_min_p(std::span<float> logits, std::span<const TokenId> recent,
                     const MinPSettings& s, Rng& rng, StepRecord* record) {
  if (s.temperature == 0.0f) {  // greedy, on the penalised logits
    repetition_penalty(logits, recent, s.penalty);
    if (record) record->begin(logits, 0.0f);
    const TokenId best = argmax(logits);
    if (record) record->drawn(-1.0f, best);
    return best;
  }
  min_p_probabilities(logits, recent, s, record);
  const float coin = rng.uniform();
  const TokenId next = sample_from(logits, coin);  // exercise 02
  if (record) record->drawn(coin, next);
  return next;
}

Picker min_p_picker(const MinPSettings& settings) {
  // what this picker chose in the current text, oldest first: entry i at step i
  auto chosen = std::make_shared<std::vector<TokenId>>();
  return [settings, chosen](std::span<float> logits, std::size_t written, Rng& rng,
                            StepRecord* record) {
    chosen->resize(std::min(written, chosen->size()));  // a new text, or this step again
    const std::size_t n = chosen->size();
    const std::size_t from = n > settings.last_n ? n - settings.last_n : 0;  // the last last_n
    const std::span<const TokenId> recent(chosen->data() + from, n - from);
    const TokenId next = sample_min_p(logits, recent, settings, rng, record);
    chosen->push_back(next);
    return next;
  };
}

}  // namespace tang
