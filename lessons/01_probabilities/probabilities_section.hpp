// probabilities_section.hpp: section 1 of the lesson.
#pragma once

#include "lesson_options.hpp"

namespace tang {

// Top-8 next characters for each prompt, then the 春风 count check.
void probabilities_section(LessonContext& context);

// How a character looks in a table: the newline is shown as ⏎.
std::string printable(const std::string& character);

// Sections 1..1 of the lesson, in order (lesson 01 runs them all).
std::vector<Section> sections_up_to_01();

}  // namespace tang
