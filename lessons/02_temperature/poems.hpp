// poems.hpp: how a section shows what the model writes: a few poems, each on its
// own indented line, and with --trace every step of a poem as a line.
#pragma once

#include <cstddef>

#include "generate.hpp"
#include "lesson.hpp"

namespace tang {

// `count` poems from scratch with one picker, written without a cache; the Rng
// starts from --seed, so every block of poems begins from the same random numbers.
void print_poems(LessonContext& context, const Picker& pick, std::size_t count);

// With --trace: what prints each step of a poem as a line (trace.hpp), before the
// poem; without it, nothing (an empty report: write() records no step).
StepReport step_lines(LessonContext& context);

}  // namespace tang
