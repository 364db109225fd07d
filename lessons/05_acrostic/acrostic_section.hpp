// acrostic_section.hpp: section 5 of the lesson.
#pragma once

#include "lesson_options.hpp"

namespace tang {

// 春眠不觉 with 7 characters a line and 学无止境 with 5 (or --heads, 7 a line).
void acrostic_section(LessonContext& context);

// Sections 1..5 of the lesson, in order (lesson 05 runs them all).
std::vector<Section> sections_up_to_05();

}  // namespace tang
