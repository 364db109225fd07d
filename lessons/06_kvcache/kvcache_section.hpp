// kvcache_section.hpp: section 6 of the lesson.
#pragma once

#include "lesson.hpp"

namespace tang {

// Same text with and without the cache? How much faster? What does it cost?
// Then exercise 06b: the same with a context of 512.
// Its timings (the speed table, the cost model, exercise 06b's context of 512)
// take seconds: lesson 06 always prints them, later lessons with --timings.
enum class CacheTimings { kAlways, kOnRequest };
Section kv_cache_section(CacheTimings timings = CacheTimings::kAlways);

}  // namespace tang
