#include "05_acrostic/acrostic.hpp"

#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/logit_mask.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "utf8.hpp"

namespace tang {

AcrosticWriter::AcrosticWriter(const Tokenizer& tokenizer, const std::string& heads,
                               std::size_t chars_per_line, const SamplingSettings& settings,
                               Rng& rng, const StepReport& report, const SampleStep& step)
    : tokenizer_(tokenizer), chars_per_line_(chars_per_line), rng_(rng) {
  if (chars_per_line < 1) throw UserError("an acrostic line needs at least one character");
  for (const std::string& head : utf8_split(heads)) {
    if (!can_head_a_line(tokenizer, head)) {
      throw UserError("the head character '" + head +
                      "' cannot start a line (not in the vocabulary, or punctuation): choose "
                      "Tang-poem characters");
    }
    heads_.push_back(*tokenizer.find(head));
  }
  pick_ = [inside_line = inside_line_mask(tokenizer), settings, step](
              std::span<float> logits, std::size_t, Rng& r, StepRecord* record) {
    const Constraint inside = [&](std::span<float> z) { inside_line.apply(z); };
    return step(logits, settings, r, record, inside);  // the mask first, then the step
  };
  if (report) {
    numbered_ = [this, report](std::size_t, const StepRecord& record) { report(++steps_, record); };
  }
  context_ = tokenizer.encode("\n");
  context_.reserve(1 + heads_.size() * (chars_per_line + 1));  // no reallocation while writing
  start_lines();
}

void AcrosticWriter::start_lines() {
  while (line_ < heads_.size()) {
    if (!drawn_) {
      context_.push_back(heads_[line_]);  // forced: the line starts with its head
      drawn_.emplace(context_, pick_, rng_, chars_per_line_ - 1, std::nullopt, numbered_);
    }
    if (!drawn_->done()) return;  // its next character is a step
    drawn_.reset();
    context_.push_back(tokenizer_.encode(line_ % 2 == 0 ? "，" : "。")[0]);  // we add it
    ++line_;
  }
}

void AcrosticWriter::take(std::span<const float> logits) {
  drawn_->take(logits);
  start_lines();
}

std::string AcrosticWriter::poem() const {
  return tokenizer_.decode(std::vector<TokenId>(context_.begin() + 1, context_.end()));
}

std::string write_acrostic(Predictor& predictor, const Tokenizer& tokenizer,
                           const std::string& heads, std::size_t chars_per_line,
                           const SamplingSettings& settings, Rng& rng, const StepReport& report) {
  AcrosticWriter writer(tokenizer, heads, chars_per_line, settings, rng, report);
  write_with(writer, predictor);
  return writer.poem();
}

}  // namespace tang
