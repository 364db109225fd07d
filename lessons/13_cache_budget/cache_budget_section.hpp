// cache_budget_section.hpp: section 13, a cache on a budget: lesson 06's cache
// in fewer bits (bf16, int8, int4, scales per token, group or channel) and with
// fewer positions (a recent window, attention sinks, heavy hitters), each
// measured on held-out texts against the float32 cache, with standard errors.
#pragma once

#include "lesson.hpp"

namespace tang {

// Section 13, with its flags --budget-texts, --cache-formats and --budgets.
Section cache_budget_section();

}  // namespace tang
