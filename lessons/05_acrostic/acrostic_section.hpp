// acrostic_section.hpp: section 5 of the lesson.
#pragma once

#include "lesson.hpp"

namespace tang {

// 春眠不觉 with 7 characters a line and 学无止境 with 5 (or --heads, 7 a line),
// then three 七言绝句 written under exercise 05's mask.
Section acrostic_section();

}  // namespace tang
