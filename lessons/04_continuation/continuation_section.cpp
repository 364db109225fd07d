#include "04_continuation/continuation_section.hpp"

#include <ostream>

#include "01_probabilities/next_char.hpp"  // lesson 01: encode_prompt
#include "02_temperature/poems.hpp"        // lesson 02: step_lines
#include "03_topk_topp/sampler.hpp"

namespace tang {

namespace {

const std::vector<std::string> kDefaultOpenings = {"床前明月光，", "大漠孤烟直，", "人工智能好，"};

void show_continuations(LessonContext& c) {
  const SamplingSettings settings = writing_settings(c.options);
  c.out << "The opening goes into the context first; the model continues it (T = "
        << label(settings.temperature) << ", top-k = " << settings.top_k << "):\n";
  const auto& openings = c.options.prompts.empty() ? kDefaultOpenings : c.options.prompts;
  Recompute predictor(c.model);
  Rng rng(c.options.seed);
  const Picker pick = sampling_picker(settings);
  for (const std::string& opening : openings) {
    encode_prompt(c.model, opening, c.out);  // notes cropping of a long opening
    const std::string poem = write_poem(predictor, c.model.tokenizer(), opening, pick, rng,
                                        c.options.length, step_lines(c));
    c.out << "    " << poem << "\n";
  }
}

std::string needs(const LessonOptions& o) {
  std::string text = "\n";
  for (const std::string& p : o.prompts.empty() ? kDefaultOpenings : o.prompts) text += p;
  return text;
}

}  // namespace

Section continuation_section() {
  return {"Continuation: the model carries on from an opening", show_continuations, needs};
}

}  // namespace tang
