// lesson_06_kvcache: the whole lesson, sections 1-6, ending with the KV cache.
#include "acrostic_section.hpp"
#include "continuation_section.hpp"
#include "kvcache_section.hpp"
#include "lesson.hpp"
#include "probabilities_section.hpp"
#include "temperature_section.hpp"
#include "topk_topp_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_06_kvcache", "Lesson 06: the KV cache (the whole lesson)",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(), tang::kv_cache_section()});
}
