#include "05_acrostic/acrostic.hpp"

#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/logit_mask.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "trace.hpp"
#include "utf8.hpp"

namespace tang {

std::string write_acrostic(Predictor& predictor, const Tokenizer& tokenizer,
                           const std::string& heads, std::size_t chars_per_line,
                           const SamplingSettings& settings, Rng& rng) {
  if (chars_per_line < 1) throw UserError("an acrostic line needs at least one character");
  const LogitMask inside_line = inside_line_mask(tokenizer);
  StepTrace* trace = settings.trace;  // --trace (null: not asked)
  std::size_t step = 0;
  const Picker pick = [&](std::span<float> logits, std::size_t, Rng& r) {
    if (trace) trace->start(logits, settings.temperature);
    inside_line.apply(logits);  // constraints first, then the usual sampling step
    if (trace) trace->filtered_logits("mask", logits);
    const TokenId next = sample_next(logits, settings, r);
    if (trace) trace->finish(++step);
    return next;
  };
  std::vector<TokenId> context = tokenizer.encode("\n");
  const std::vector<std::string> head_characters = utf8_split(heads);
  for (std::size_t line = 0; line < head_characters.size(); ++line) {
    if (!can_head_a_line(tokenizer, head_characters[line])) {
      throw UserError("the head character '" + head_characters[line] +
                      "' cannot start a line (not in the vocabulary, or punctuation): choose "
                      "Tang-poem characters");
    }
    context.push_back(
        *tokenizer.find(head_characters[line]));  // forced: the line starts with the head
    write(predictor, context, pick, rng, chars_per_line - 1, /*stop_after=*/std::nullopt);
    context.push_back(tokenizer.encode(line % 2 == 0 ? "，" : "。")[0]);  // we add the punctuation
  }
  return tokenizer.decode(std::vector<TokenId>(context.begin() + 1, context.end()));
}

}  // namespace tang
