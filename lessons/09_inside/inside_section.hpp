// inside_section.hpp: section 9, inside the model: what each head attends to,
// what each layer would predict, and what each head is for, measured.
#pragma once

#include "lesson.hpp"

namespace tang {

// Section 9, with its flag --poems.
Section inside_section();

}  // namespace tang
