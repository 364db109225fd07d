#include "acrostic_section.hpp"

#include <ostream>
#include <utility>

#include "acrostic.hpp"
#include "continuation_section.hpp"
#include "exercise/qiyan_jueju.hpp"  // --mine: exercise 05
#include "fixed_form.hpp"
#include "your_code.hpp"

namespace tang {

void acrostic_section(LessonContext& c) {
  const SamplingSettings settings = writing_settings(c.options);
  c.out << "We choose each line's first character; inside a line \"，\", \"。\" and the newline are "
           "banned (logit = -inf), and we add the punctuation ourselves:\n";
  std::vector<std::pair<std::string, std::size_t>> requests = {{"春眠不觉", 7}, {"学无止境", 5}};
  if (!c.options.heads.empty()) {
    requests.clear();
    for (const std::string& heads : c.options.heads) requests.emplace_back(heads, 7);
  }
  Decoder decoder(c.model, /*use_cache=*/false);
  Rng rng(c.options.seed);
  for (const auto& [heads, per_line] : requests) {
    c.out << "  " << heads << " (" << per_line << " characters a line):\n    "
          << write_acrostic(decoder, c.model.tokenizer(), heads, per_line, settings, rng) << "\n";
  }

  // --- --mine: exercise 05, the model writes every character under your mask ---
  run_yours(c, "exercise 05, lessons/05_acrostic/exercise/qiyan_jueju.cpp", [&] {
    const Tokenizer& tokenizer = c.model.tokenizer();
    c.out << "  Only 七言绝句: your mask decides, position by position, what may come next:\n";
    Rng mask_rng(c.options.seed);
    const MaskForPosition yours = [&](std::size_t position) {
      return mine::qiyan_jueju_mask(tokenizer, position);
    };
    for (int poem = 0; poem < 3; ++poem) {
      std::vector<TokenId> written =
          write_under_masks(decoder, tokenizer, yours, settings, mask_rng, /*max_chars=*/40);
      const std::string problem = qiyan_jueju_problem(tokenizer, written);
      if (!written.empty() && written.back() == 0) written.pop_back();
      c.out << "    " << tokenizer.decode(written) << "   "
            << (problem.empty() ? "(form OK)" : "(NOT a 七言绝句: " + problem + ")") << "\n";
    }
  });
}

std::vector<Section> sections_up_to_05() {
  std::vector<Section> sections = sections_up_to_04();
  sections.push_back({"Acrostic (藏头诗): constrained decoding", acrostic_section});
  return sections;
}

}  // namespace tang
