// trace.hpp: --trace, what one sampling step did, as a record and as one line.
//
//   step  3  top 5: 风 31.2% 月 9.0% ...  | top-k removed 7109 chars (22.0%) | coin 0.4183 -> 风
//
// A sampling step fills a StepRecord as it goes: begin() with the scores before
// any filter, removed_*() after each filter (mask, top-k, top-p, min-p), drawn()
// with the coin and the character. Every share removed is of the distribution
// begin() saw, so they add up. The writing loop (generate.hpp) hands it on.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tokenizer.hpp"

namespace tang {

struct StepRecord {
  // The scores before any filter, divided by `temperature` here (greedy, 0: by
  // 1): their softmax is the distribution the shares below are of.
  void begin(std::span<const float> logits, float temperature);
  // After a filter on the logits (a mask, top-k): a character it removed is now -inf.
  void removed_logits(const std::string& filter, std::span<const float> logits);
  // After a filter on the probabilities (top-p, min-p): removed characters are now 0.
  void removed_probabilities(const std::string& filter, std::span<const float> probabilities);
  void drawn(float coin, TokenId chosen) {
    this->coin = coin;
    this->chosen = chosen;
  }

  struct Cut {
    std::string filter;
    std::size_t removed = 0;  // characters
    double share = 0.0;       // of the distribution before any filter
  };
  std::vector<float> before;  // (V) softmax at the temperature, before the filters
  std::vector<bool> kept;     // (V) still in after the filters so far
  std::vector<Cut> cuts;
  float coin = -1.0f;  // < 0: no coin (greedy)
  TokenId chosen = -1;
};

// The record as one line (step counts from 1), newline included.
std::string step_line(const StepRecord& record, std::size_t step, const Tokenizer& tokenizer);

}  // namespace tang
