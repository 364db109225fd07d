// trace.hpp: --trace, what one sampling step did, printed as one line.
//
//   step  3  top 5: 风 31.2% 月 9.0% ...  | top-k removed 7109 chars (22.0%) | coin 0.4183 -> 风
//
// The sampler reports to a StepTrace as it goes: start() with the scores
// before any filter, filtered() after each filter (lesson 05's mask, top-k,
// top-p), drawn() with the coin and the character. Every "removed" share is
// of the distribution start() saw, so the shares of all filters add up.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "tokenizer.hpp"

namespace tang {

class StepTrace {
 public:
  StepTrace(std::ostream& out, const Tokenizer& tokenizer) : out_(out), tokenizer_(tokenizer) {}
  // Forget the last step.
  void reset();
  bool started() const { return !reference_.empty(); }
  // The scores before any filter, divided by `temperature` here (greedy, 0:
  // by 1): their softmax is the distribution the shares below are of.
  void start(std::span<const float> logits, float temperature);
  // After a filter on the logits (a mask, top-k): a character it removed is
  // now -inf. Records how many were removed, and their share.
  void filtered_logits(const std::string& filter, std::span<const float> logits);
  // After a filter on the probabilities (top-p): removed characters are now 0.
  void filtered_probabilities(const std::string& filter, std::span<const float> probabilities);
  void drawn(float coin, TokenId chosen);
  // Prints the step as one line (step counts from 1), then forgets it.
  void finish(std::size_t step);

 private:
  std::ostream& out_;
  const Tokenizer& tokenizer_;
  struct Cut {
    std::string filter;
    std::size_t removed;  // characters
    double share;         // of the distribution before any filter
  };
  std::vector<float> reference_;  // (V) softmax at the temperature, before filters
  std::vector<bool> kept_;        // (V) still in after the filters so far
  std::vector<Cut> cuts_;
  void cut(const std::string& filter, std::span<const float> now, float removed_value);
  float coin_ = -1.0f;  // < 0: no coin (greedy)
  TokenId chosen_ = -1;
};

}  // namespace tang
