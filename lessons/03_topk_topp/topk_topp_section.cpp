#include "topk_topp_section.hpp"

#include <cstdio>
#include <memory>
#include <ostream>

#include "exercise/top_p.hpp"  // --mine: exercise 03
#include "next_char.hpp"
#include "temperature.hpp"
#include "temperature_section.hpp"
#include "your_code.hpp"

namespace tang {

Picker sampling_picker(const SamplingSettings& settings) {
  auto scratch = std::make_shared<SamplerScratch>();
  return [settings, scratch](std::span<float> logits, std::size_t, Rng& rng) {
    return sample_next(logits, settings, rng, *scratch);
  };
}

void topk_topp_section(LessonContext& c) {
  const float t = temperature_or(c.options, 1.5f);
  char heading[96];
  std::snprintf(heading, sizeof heading, "  T = %.1f, only the %zu most likely characters (top-k = %zu):\n",
                t, c.options.top_k, c.options.top_k);
  c.out << heading;
  print_poems(c, sampling_picker({t, c.options.top_k, 1.0f}), 3);
  std::snprintf(heading, sizeof heading, "  T = %.1f, the smallest set reaching p = %.2f (top-p):\n", t,
                c.options.top_p);
  c.out << heading;
  print_poems(c, sampling_picker({t, 0, c.options.top_p}), 3);

  // --- --mine: exercise 03, your top-p next to the reference (your_code.hpp) ---
  run_yours(c, "exercise 03, lessons/03_topk_topp/exercise/top_p.cpp", [&] {
    const float p = c.options.top_p;
    std::snprintf(heading, sizeof heading, "  T = %.1f, p = %.2f, the reference top-p and yours:\n",
                  t, p);
    c.out << heading;
    const Picker yours = [t, p](std::span<float> logits, std::size_t, Rng& rng) {
      if (t == 0.0f) return argmax(logits);  // greedy, as the reference
      apply_temperature(logits, t);
      softmax_in_place(logits);
      mine::top_p_filter(logits, p);
      return sample_from(logits, rng.uniform());
    };
    print_side_by_side(c, sampling_picker({t, 0, p}), yours, 3);
  });
}

std::vector<Section> sections_up_to_03() {
  std::vector<Section> sections = sections_up_to_02();
  sections.push_back({"Top-k and top-p: a high temperature without the long tail", topk_topp_section});
  return sections;
}

}  // namespace tang
