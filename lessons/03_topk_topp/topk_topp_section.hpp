// topk_topp_section.hpp: section 3 of the lesson.
#pragma once

#include "lesson_options.hpp"
#include "poem_writer.hpp"
#include "top_k_top_p.hpp"

namespace tang {

// T = 1.5 with top-k = 20, then top-p = 0.9 at T = 1.5: three poems each.
void topk_topp_section(LessonContext& context);

// A picker for the full sampling step (temperature, top-k, top-p).
Picker sampling_picker(const SamplingSettings& settings);

// Sections 1..3 of the lesson, in order (lesson 03 runs them all).
std::vector<Section> sections_up_to_03();

}  // namespace tang
