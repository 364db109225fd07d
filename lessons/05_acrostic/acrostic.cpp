#include "05_acrostic/acrostic.hpp"

#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/logit_mask.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "utf8.hpp"

namespace tang {

std::string write_acrostic(Predictor& predictor, const Tokenizer& tokenizer,
                           const std::string& heads, std::size_t chars_per_line,
                           const SamplingSettings& settings, Rng& rng, const StepReport& report) {
  if (chars_per_line < 1) throw UserError("an acrostic line needs at least one character");
  const LogitMask inside_line = inside_line_mask(tokenizer);
  const Constraint inside = [&](std::span<float> logits) { inside_line.apply(logits); };
  const Picker pick = [&](std::span<float> logits, std::size_t, Rng& r, StepRecord* record) {
    return sample_next(logits, settings, r, record, inside);  // the mask first, then the step
  };
  std::size_t step = 0;  // across the lines: the heads and punctuation are not steps
  const StepReport numbered = [&](std::size_t, const StepRecord& record) {
    report(++step, record);
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
    write(predictor, context, pick, rng, chars_per_line - 1, /*stop_after=*/std::nullopt,
          report ? numbered : StepReport{});
    context.push_back(tokenizer.encode(line % 2 == 0 ? "，" : "。")[0]);  // we add the punctuation
  }
  return tokenizer.decode(std::vector<TokenId>(context.begin() + 1, context.end()));
}

}  // namespace tang
