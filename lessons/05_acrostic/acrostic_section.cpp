#include "05_acrostic/acrostic_section.hpp"

#include <ostream>
#include <utility>

#include "02_temperature/poems.hpp"  // lesson 02: step_lines
#include "03_topk_topp/sampler.hpp"
#include "05_acrostic/acrostic.hpp"
#include "05_acrostic/exercise/qiyan_jueju.hpp"  // exercise 05
#include "05_acrostic/fixed_form.hpp"

namespace tang {

namespace {

// The default heads (春眠不觉: the start of 孟浩然's 春眠不觉晓; 学无止境: a saying) and
// their line lengths; --heads replaces them, 7 characters a line.
const std::vector<std::pair<std::string, std::size_t>> kDefaultHeads = {{"春眠不觉", 7},
                                                                        {"学无止境", 5}};

void show_acrostics(LessonContext& c) {
  const SamplingSettings settings = writing_settings(c.options);
  const StepReport report = step_lines(c);  // --trace: every step as a line
  c.out
      << "We choose each line's first character; inside a line \"，\", \"。\" and the newline are "
         "banned (logit = -inf), and we add the punctuation ourselves:\n";
  std::vector<std::pair<std::string, std::size_t>> requests = kDefaultHeads;
  if (!c.options.heads.empty()) {
    requests.clear();
    for (const std::string& heads : c.options.heads) requests.emplace_back(heads, 7);
  }
  Recompute predictor(c.model);
  Rng rng(c.options.seed);
  for (const auto& [heads, per_line] : requests) {
    c.out << "  " << heads << " (" << per_line << " characters a line):\n";
    const std::string poem =
        write_acrostic(predictor, c.model.tokenizer(), heads, per_line, settings, rng, report);
    c.out << "    " << poem << "\n";
  }

  // The model writes every character itself; exercise 05's mask decides,
  // position by position, what it may write: only 七言绝句 can come out.
  const Tokenizer& tokenizer = c.model.tokenizer();
  c.out
      << "\n  Only 七言绝句: a mask for every position (exercise 05) decides what may come next:\n";
  Rng mask_rng(c.options.seed);
  const MaskForPosition mask = [&](std::size_t position) {
    return qiyan_jueju_mask(tokenizer, position);
  };
  for (int poem = 0; poem < 3; ++poem) {
    std::vector<TokenId> written =
        write_under_masks(predictor, tokenizer, mask, settings, mask_rng, /*max_chars=*/40, report);
    const std::string problem = qiyan_jueju_problem(tokenizer, written);
    if (!written.empty() && written.back() == tokenizer.newline()) written.pop_back();
    c.out << "    " << tokenizer.decode(written) << "   "
          << (problem.empty() ? "(form OK)" : "(NOT a 七言绝句: " + problem + ")") << "\n";
  }
}

std::string needs(const LessonOptions& o) {
  std::string text = "\n，。";  // the form: line ends and the poem's end
  for (const auto& [heads, per_line] : kDefaultHeads) text += o.heads.empty() ? heads : "";
  for (const std::string& h : o.heads) text += h;
  return text;
}

}  // namespace

Section acrostic_section() {
  return {"Acrostic (藏头诗): constrained decoding", show_acrostics, needs};
}

}  // namespace tang
