// kvcache_section.hpp: section 6 of the lesson.
#pragma once

#include "lesson.hpp"

namespace tang {

// Same text with and without the cache? How much faster? What does it cost?
// Then exercise 06b: the same with a context of 512.
Section kv_cache_section();

}  // namespace tang
