// temperature_section.hpp: section 2 of the lesson.
#pragma once

#include "lesson.hpp"

namespace tang {

// The same seed at T = 0.3, 1.0 and 1.5 (or --temperature): three poems each,
// drawn with exercise 02's sample_with_temperature.
Section temperature_section();

}  // namespace tang
