#include "01_probabilities/probabilities_section.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "01_probabilities/corpus_count.hpp"
#include "01_probabilities/next_char.hpp"
#include "errors.hpp"

namespace tang {

namespace {
const std::vector<std::string> kDefaultPrompts = {"白日依山尽，黄河入海", "床前明月光，疑是地上",
                                                  "春风"};

std::string percent(double p) {
  char text[16];
  std::snprintf(text, sizeof text, "%5.1f%%", 100.0 * p);
  return text;
}

float share(std::size_t part, std::size_t whole) {
  return whole ? static_cast<float>(static_cast<double>(part) / static_cast<double>(whole)) : 0.0f;
}

void show_probabilities(LessonContext& c) {
  c.out << "The 8 most likely next characters, of all " << c.model.config().vocab_size
        << ", after each text:\n";
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
  const Tokenizer& tokenizer = c.model.tokenizer();
  const FollowCount count = count_followers(c.options.corpus, text, next);
  const auto alone = next_char_probabilities(predictor, tokenizer.encode(text));
  const auto next_id = static_cast<std::size_t>(tokenizer.encode(next)[0]);
  c.out << "\n  Corpus check: how often is 「" << text << "」 followed by 「" << next << "」?\n";
  c.out << "    in all the poems:  " << count.followed << " of " << count.occurrences
        << " times = " << percent(share(count.followed, count.occurrences)) << "\n";
  c.out << "    the model, after 「" << text
        << "」 with nothing before it: " << percent(alone[next_id]) << "\n";

  // The same question where the model meets 春风 in a real poem it never
  // trained on: after each 春风 of the held-out poems, with the text before it.
  std::vector<TokenId> held_out;  // the held-out poems one after another, as the trainer reads them
  std::size_t unknown = 0;        // poems of another --corpus with characters the model lacks
  for (const std::string& poem : held_out_poems(c.options.corpus)) {
    try {
      const std::vector<TokenId> ids = tokenizer.encode(poem);
      held_out.insert(held_out.end(), ids.begin(), ids.end());
    } catch (const UserError&) {
      unknown += 1;
    }
  }
  const std::vector<TokenId> pattern = tokenizer.encode(text);
  std::size_t seen = 0, followed = 0;
  double total_p = 0.0;
  for (auto at = std::search(held_out.begin(), held_out.end(), pattern.begin(), pattern.end());
       at != held_out.end();
       at = std::search(at + 1, held_out.end(), pattern.begin(), pattern.end())) {
    const auto end = at + static_cast<std::ptrdiff_t>(pattern.size());  // just after 风
    const std::span<const TokenId> context(held_out.data(),
                                           static_cast<std::size_t>(end - held_out.begin()));
    total_p += next_char_probabilities(predictor, context)[next_id];  // the window's last 128
    seen += 1;
    if (end != held_out.end() && static_cast<std::size_t>(*end) == next_id) followed += 1;
  }
  c.out << "    in the held-out poems: " << followed << " of " << seen
        << " times = " << percent(share(followed, seen)) << "\n";
  c.out << "    the model there, in each one's own context: "
        << percent(seen ? total_p / seen : 0.0) << " on average\n";
  if (unknown > 0)
    c.out << "    (" << unknown
          << " held-out poems left out: characters the model does not know)\n";
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
