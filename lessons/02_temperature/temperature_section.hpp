// temperature_section.hpp: section 2 of the lesson.
#pragma once

#include "lesson_options.hpp"
#include "poem_writer.hpp"

namespace tang {

// The same seed at T = 0.3, 1.0 and 1.5 (or --temperature): three poems each.
void temperature_section(LessonContext& context);

// Three poems with one picker, each on its own indented line; the Rng starts
// from --seed, so every block of poems begins from the same random numbers.
void print_poems(LessonContext& context, const Picker& pick, std::size_t count);

// Sections 1..2 of the lesson, in order (lesson 02 runs them all).
std::vector<Section> sections_up_to_02();

}  // namespace tang
