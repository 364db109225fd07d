// kvcache_section.hpp: section 6 of the lesson.
#pragma once

#include "lesson_options.hpp"

namespace tang {

// Same text with and without the cache? How much faster? What does it cost?
void kvcache_section(LessonContext& context);

// Sections 1..6 of the lesson, in order (lesson 06 runs them all).
std::vector<Section> sections_up_to_06();

}  // namespace tang
