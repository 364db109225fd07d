// continuation_section.hpp: section 4 of the lesson.
//
// Generation need not start from nothing: the prompt goes into the context
// first (the "prefill"), and the model carries on from there.
#pragma once

#include "lesson_options.hpp"
#include "top_k_top_p.hpp"

namespace tang {

// How sections 4-6 sample unless flags say otherwise: T = 0.8 with top-k.
SamplingSettings writing_settings(const LessonOptions& options);

// 床前明月光， / 大漠孤烟直， / 人工智能好， (or --prompt), one poem each.
void continuation_section(LessonContext& context);

// Sections 1..4 of the lesson, in order (lesson 04 runs them all).
std::vector<Section> sections_up_to_04();

}  // namespace tang
