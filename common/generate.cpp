#include "generate.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "errors.hpp"

namespace tang {

std::span<const TokenId> crop_to_context(std::span<const TokenId> context, std::size_t block_size) {
  return context.size() > block_size ? context.subspan(context.size() - block_size) : context;
}

std::span<const float> Recompute::next_logits(std::span<const TokenId> context) {
  if (context.empty()) throw std::invalid_argument("next_logits: empty context");
  const auto logits = forward(model_, crop_to_context(context, model_.config().block_size), acts_);
  return require_finite({logits.data(), logits.size()});  // (1, V) -> (V)
}

std::span<const float> require_finite(std::span<const float> logits) {
  // |z| <= the largest float is false for inf and NaN alike; counting in one
  // pass without a branch per logit lets the compiler check eight at a time.
  std::size_t not_finite = 0;
  for (const float z : logits) not_finite += !(std::fabs(z) <= std::numeric_limits<float>::max());
  if (not_finite > 0) {
    throw UserError(
        "the model computed a logit that is not a finite number (inf or NaN): its weights are "
        "too large to compute with; use a checkpoint written by lesson_00_train (or the shipped "
        "one)");
  }
  return logits;
}

void write_with(Writer& writer, Predictor& predictor) {
  while (!writer.done()) writer.take(predictor.next_logits(writer.context()));
}

SampledWriter::SampledWriter(std::vector<TokenId>& context, const Picker& pick, Rng& rng,
                             std::size_t max_new, std::optional<TokenId> stop_after,
                             const StepReport& report)
    : context_(context),
      pick_(pick),
      rng_(rng),
      max_new_(max_new),
      stop_after_(stop_after),
      report_(report) {
  context_.reserve(context_.size() + max_new);  // no reallocation while writing
}

bool SampledWriter::done() const {
  return written_.size() >= max_new_ ||
         (!written_.empty() && written_.back() == stop_after_);  // a poem's newline
}

void SampledWriter::take(std::span<const float> logits) {
  logits_.assign(logits.begin(), logits.end());  // the picker may overwrite its copy
  StepRecord record;                             // filled only when asked: --trace
  const TokenId next = pick_(logits_, written_.size(), rng_, report_ ? &record : nullptr);
  if (report_) report_(written_.size() + 1, record);
  context_.push_back(next);
  written_.push_back(next);
}

std::vector<TokenId> write(Predictor& predictor, std::vector<TokenId>& context, const Picker& pick,
                           Rng& rng, std::size_t max_new, std::optional<TokenId> stop_after,
                           const StepReport& report) {
  SampledWriter writer(context, pick, rng, max_new, stop_after, report);
  write_with(writer, predictor);
  return writer.written();
}

std::string write_poem(Predictor& predictor, const Tokenizer& tokenizer, const std::string& opening,
                       const Picker& pick, Rng& rng, std::size_t max_chars,
                       const StepReport& report) {
  std::vector<TokenId> context = tokenizer.encode("\n" + opening);
  return poem_text(tokenizer, opening,
                   write(predictor, context, pick, rng, max_chars, tokenizer.newline(), report));
}

std::string poem_text(const Tokenizer& tokenizer, const std::string& opening,
                      std::vector<TokenId> written) {
  if (!written.empty() && written.back() == tokenizer.newline()) written.pop_back();
  return opening + tokenizer.decode(written);
}

}  // namespace tang
