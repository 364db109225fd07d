// lesson_06_kvcache: the whole lesson, sections 1-6, ending with the KV cache.
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "03_topk_topp/topk_topp_section.hpp"
#include "04_continuation/continuation_section.hpp"
#include "05_acrostic/acrostic_section.hpp"
#include "06_kvcache/kvcache_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_06_kvcache", "Lesson 06: the KV cache (the whole lesson)",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(), tang::kv_cache_section()});
}
