// topk_topp_section.hpp: section 3 of the lesson.
#pragma once

#include "lesson.hpp"

namespace tang {

// At T = 1.5: top-k = 20, then top-p = 0.9, then a repetition penalty of 1.1
// with min-p 0.05 (exercise 03b): three poems each.
Section topk_topp_section();

}  // namespace tang
