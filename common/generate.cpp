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

std::vector<TokenId> write(Predictor& predictor, std::vector<TokenId>& context, const Picker& pick,
                           Rng& rng, std::size_t max_new, std::optional<TokenId> stop_after,
                           const StepReport& report) {
  std::vector<TokenId> written;
  std::vector<float> logits;
  context.reserve(context.size() + max_new);  // no reallocation while writing
  while (written.size() < max_new) {
    const std::span<const float> scores = predictor.next_logits(context);
    logits.assign(scores.begin(), scores.end());  // the picker may overwrite its copy
    StepRecord record;                            // filled only when asked: --trace
    const TokenId next = pick(logits, written.size(), rng, report ? &record : nullptr);
    if (report) report(written.size() + 1, record);
    context.push_back(next);
    written.push_back(next);
    if (next == stop_after) break;  // a poem's newline
  }
  return written;
}

std::string write_poem(Predictor& predictor, const Tokenizer& tokenizer, const std::string& opening,
                       const Picker& pick, Rng& rng, std::size_t max_chars,
                       const StepReport& report) {
  std::vector<TokenId> context = tokenizer.encode("\n" + opening);
  const TokenId newline = tokenizer.newline();
  std::vector<TokenId> poem = write(predictor, context, pick, rng, max_chars, newline, report);
  if (!poem.empty() && poem.back() == newline) poem.pop_back();
  return opening + tokenizer.decode(poem);
}

}  // namespace tang
