#include "probabilities_section.hpp"
#include "temperature_section.hpp"

#include <cstdio>
#include <ostream>

#include "exercise/sample_with_temperature.hpp"  // --mine: exercise 02
#include "your_code.hpp"

namespace tang {

void print_poems(LessonContext& c, const Picker& pick, std::size_t count) {
  Decoder decoder(c.model, /*use_cache=*/false);
  Rng rng(c.options.seed);
  for (std::size_t i = 0; i < count; ++i) {
    c.out << "    " << write_poem(decoder, c.model.tokenizer(), "", pick, rng, c.options.length) << "\n";
  }
}

void temperature_section(LessonContext& c) {
  c.out << "Divide the logits by T before softmax, then draw. Same seed for every T:\n";
  const std::vector<float> temperatures =
      c.options.temperature ? std::vector<float>{*c.options.temperature} : std::vector<float>{0.3f, 1.0f, 1.5f};
  for (float t : temperatures) {
    char heading[64];
    std::snprintf(heading, sizeof heading, "  T = %.1f%s\n", t, t == 0.0f ? " (greedy)" : "");
    c.out << heading;
    print_poems(c, temperature_picker(t), 3);
  }

  // --- --mine: exercise 02, your sampler next to the reference (your_code.hpp) ---
  run_yours(c, "exercise 02, lessons/02_temperature/exercise/sample_with_temperature.cpp", [&] {
    const float t = temperature_or(c.options, 1.0f);
    c.out << "  T = " << t << ", the same seed, the reference sampler and yours:\n";
    const Picker yours = [t](std::span<float> logits, std::size_t, Rng& rng) {
      return mine::sample_with_temperature(logits, t, rng.uniform());
    };
    print_side_by_side(c, temperature_picker(t), yours, 3);
  });
}

std::vector<Section> sections_up_to_02() {
  std::vector<Section> sections = sections_up_to_01();
  sections.push_back({"Temperature: the same seed at three temperatures", temperature_section});
  return sections;
}

}  // namespace tang
