// topk_topp_section.hpp: section 3 of the lesson.
#pragma once

#include "lesson.hpp"

namespace tang {

// T = 1.5 with top-k = 20, then top-p = 0.9 at T = 1.5: three poems each.
Section topk_topp_section();

}  // namespace tang
