#include "05_acrostic/fixed_form.hpp"

#include <algorithm>
#include <string>

#include "03_topk_topp/sampler.hpp"
#include "lesson.hpp"

namespace tang {

std::vector<TokenId> write_under_masks(Predictor& predictor, const Tokenizer& tokenizer,
                                       const MaskForPosition& mask_for,
                                       const SamplingSettings& settings, Rng& rng,
                                       std::size_t max_chars, const StepReport& report) {
  const Picker pick = [&](std::span<float> logits, std::size_t written, Rng& r,
                          StepRecord* record) {
    const LogitMask mask = mask_for(written + 1);  // for the character about to be drawn
    const Constraint constraint = [&](std::span<float> z) { mask.apply(z); };
    return sample_next(logits, settings, r, record, constraint);  // the mask first
  };
  std::vector<TokenId> context = tokenizer.encode("\n");
  return write(predictor, context, pick, rng, max_chars, tokenizer.newline(), report);
}

std::string qiyan_jueju_problem(const Tokenizer& tokenizer, const std::vector<TokenId>& written) {
  const std::size_t length = 33;
  for (std::size_t i = 0; i < std::min(written.size(), length); ++i) {
    const std::size_t position = i + 1;
    const std::string& got = tokenizer.character(written[i]);
    std::string expected;  // empty: any character but "，", "。" and the newline
    if (position == length) {
      expected = "\n";
    } else if (position % 8 == 0) {
      expected = (position / 8) % 2 == 1 ? "，" : "。";
    }
    const bool ok =
        expected.empty() ? (got != "，" && got != "。" && got != "\n") : got == expected;
    if (!ok) {
      std::string problem = "character " + std::to_string(position) + " is '" + printable(got);
      problem += "', expected ";  // appended, not one long sum: GCC 12 warns falsely on that
      if (expected.empty()) {
        problem += "a character inside the line (not '，', '。' or ⏎)";
      } else {
        problem += '\'';
        problem += printable(expected);
        problem += '\'';
      }
      return problem;
    }
  }
  if (written.size() != length) {
    return "the poem has " + std::to_string(written.size()) +
           " characters with its newline, expected 33";
  }
  return "";
}

}  // namespace tang
