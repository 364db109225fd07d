// continuation_section.hpp: section 4 of the lesson.
//
// Generation need not start from nothing: the prompt goes into the context
// first (the "prefill"), and the model carries on from there.
#pragma once

#include "lesson.hpp"

namespace tang {

// 床前明月光， / 大漠孤烟直， / 人工智能好， (or --prompt), one poem each.
Section continuation_section();

}  // namespace tang
