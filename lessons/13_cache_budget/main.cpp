// lesson_13_cache_budget: sections 1-13, ending on a cache on a budget: lesson
// 06's cache in fewer bits, and caches that keep fewer positions.
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "03_topk_topp/topk_topp_section.hpp"
#include "04_continuation/continuation_section.hpp"
#include "05_acrostic/acrostic_section.hpp"
#include "06_kvcache/kvcache_section.hpp"
#include "07_verse/verse_section.hpp"
#include "08_many_poems/many_poems_section.hpp"
#include "09_inside/inside_section.hpp"
#include "10_cache_size/cache_size_section.hpp"
#include "11_server/server_section.hpp"
#include "12_speculative/speculative_section.hpp"
#include "13_cache_budget/cache_budget_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_13_cache_budget", "Lesson 13: a cache on a budget",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(),
       tang::kv_cache_section(tang::CacheTimings::kOnRequest), tang::verse_section(),
       tang::many_poems_section(), tang::inside_section(), tang::cache_size_section(),
       tang::server_section(), tang::speculative_section(), tang::cache_budget_section()});
}
