// acrostic.hpp: 藏头诗, a poem whose lines start with given characters.
//
// For each head character: we put it in the context ourselves, let the model
// write the rest of the line with punctuation and newline banned, then add
// "，" (odd lines) or "。" (even lines) ourselves, so the form is guaranteed.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "03_topk_topp/sampler.hpp"  // lesson 03: SampleStep, sample_next
#include "generate.hpp"
#include "sampling.hpp"

namespace tang {

// The acrostic as a Writer (common/generate.hpp): each step draws one character
// of a line; the heads and the punctuation go in between, with no step of their
// own. heads: UTF-8 text, one character per line (e.g. "春眠不觉");
// chars_per_line counts the head. Throws UserError for a head the model does
// not know. `tokenizer`, `settings`, `rng` and `report` must outlive it. Each
// character is drawn by `step` (lesson 03's sample_next; lesson 11's tuned path
// passes its own), with the mask inside a line first.
class AcrosticWriter : public Writer {
 public:
  AcrosticWriter(const Tokenizer& tokenizer, const std::string& heads, std::size_t chars_per_line,
                 const SamplingSettings& settings, Rng& rng, const StepReport& report = {},
                 const SampleStep& step = sample_next);
  AcrosticWriter(const AcrosticWriter&) = delete;  // its line's writer points into it
  AcrosticWriter& operator=(const AcrosticWriter&) = delete;
  std::span<const TokenId> context() const override { return context_; }
  void take(std::span<const float> logits) override;
  bool done() const override { return line_ == heads_.size(); }
  // The poem: its lines, heads and punctuation included, without the first newline.
  std::string poem() const;

 private:
  void start_lines();  // from line_ on: its head, and the punctuation of lines with nothing to draw

  const Tokenizer& tokenizer_;
  std::vector<TokenId> heads_;
  std::size_t chars_per_line_;
  Rng& rng_;
  Picker pick_;            // the mask inside a line, then lesson 03's step
  StepReport numbered_;    // the caller's report, its steps counted across the lines
  std::size_t steps_ = 0;  // steps so far, all lines together
  std::vector<TokenId> context_;
  std::size_t line_ = 0;                // the line being written
  std::optional<SampledWriter> drawn_;  // its characters after the head
};

// The whole acrostic through `predictor` (an AcrosticWriter driven to its end).
std::string write_acrostic(Predictor& predictor, const Tokenizer& tokenizer,
                           const std::string& heads, std::size_t chars_per_line,
                           const SamplingSettings& settings, Rng& rng,
                           const StepReport& report = {});

}  // namespace tang
