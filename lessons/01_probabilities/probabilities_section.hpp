// probabilities_section.hpp: section 1 of the lesson.
#pragma once

#include "lesson.hpp"

namespace tang {

// Top-8 next characters for each prompt, then the 春风 count check.
Section probabilities_section();

}  // namespace tang
