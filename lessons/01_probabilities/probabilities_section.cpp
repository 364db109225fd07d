#include "probabilities_section.hpp"

#include <cstdio>
#include <ostream>

#include "corpus_count.hpp"
#include "next_char.hpp"

namespace tang {

namespace {
const std::vector<std::string> kDefaultPrompts = {"白日依山尽，黄河入海", "床前明月光，疑是地上",
                                                  "春风"};

std::string percent(float p) {
  char text[16];
  std::snprintf(text, sizeof text, "%5.1f%%", 100.0 * p);
  return text;
}

void show_probabilities(LessonContext& c) {
  c.out << "After reading a text, the model gives every one of its " << c.model.config().vocab_size
        << " characters a probability. The 8 most likely next characters:\n";
  Recompute predictor(c.model);
  const auto& prompts = c.options.prompts.empty() ? kDefaultPrompts : c.options.prompts;
  for (const std::string& prompt : prompts) {
    const auto ids = encode_prompt(c.model, prompt, c.out);
    const auto probabilities = next_char_probabilities(predictor, ids);
    c.out << "  「" << prompt << "」 →";
    for (const Candidate& k : most_likely(probabilities, 8)) {
      c.out << "  " << printable(c.model.tokenizer().character(k.id)) << percent(k.probability);
    }
    c.out << "\n";
  }

  // Does the model match the data? Count 春风 and what follows it in the corpus.
  const std::string text = "春风", next = "。";
  const FollowCount count = count_followers(c.options.corpus, text, next);
  const auto probabilities = next_char_probabilities(predictor, c.model.tokenizer().encode(text));
  const float model_p =
      probabilities[static_cast<std::size_t>(c.model.tokenizer().encode(next)[0])];
  const double share =
      count.occurrences ? static_cast<double>(count.followed) / count.occurrences : 0.0;
  c.out << "\n  Corpus check: how often is 「" << text << "」 followed by 「" << next << "」?\n";
  c.out << "    in the poems: " << count.followed << " of " << count.occurrences << " times"
        << " = " << percent(static_cast<float>(share)) << "\n";
  c.out << "    the model:    " << percent(model_p) << "\n";
}

std::string needs(const LessonOptions& o) {
  std::string text = "春风。";  // the corpus check
  for (const std::string& p : o.prompts.empty() ? kDefaultPrompts : o.prompts) text += p;
  return text;
}

}  // namespace

Section probabilities_section() {
  return {"Next-character probabilities (top 8)", show_probabilities, needs};
}

}  // namespace tang
