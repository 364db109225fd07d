#include "continuation_section.hpp"

#include <ostream>

#include "poem_writer.hpp"
#include "topk_topp_section.hpp"

namespace tang {

namespace {
const std::vector<std::string> kDefaultOpenings = {"床前明月光，", "大漠孤烟直，", "人工智能好，"};
}

SamplingSettings writing_settings(const LessonOptions& options) {
  return {temperature_or(options, 0.8f), options.top_k, 1.0f};
}

void continuation_section(LessonContext& c) {
  const SamplingSettings settings = writing_settings(c.options);
  c.out << "The opening goes into the context first; the model continues it (T = "
        << settings.temperature << ", top-k = " << settings.top_k << "):\n";
  const auto& openings = c.options.prompts.empty() ? kDefaultOpenings : c.options.prompts;
  Decoder decoder(c.model, /*use_cache=*/false);
  Rng rng(c.options.seed);
  const Picker pick = sampling_picker(settings);
  for (const std::string& opening : openings) {
    encode_prompt(c.model, opening, c.out);  // names unknown characters; notes cropping
    c.out << "    " << write_poem(decoder, c.model.tokenizer(), opening, pick, rng, c.options.length)
          << "\n";
  }
}

std::vector<Section> sections_up_to_04() {
  std::vector<Section> sections = sections_up_to_03();
  sections.push_back({"Continuation: the model carries on from an opening", continuation_section});
  return sections;
}

}  // namespace tang
