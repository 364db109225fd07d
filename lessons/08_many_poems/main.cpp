// lesson_08_many_poems: sections 1-8, ending with batched decoding and smaller weights.
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "03_topk_topp/topk_topp_section.hpp"
#include "04_continuation/continuation_section.hpp"
#include "05_acrostic/acrostic_section.hpp"
#include "06_kvcache/kvcache_section.hpp"
#include "07_verse/verse_section.hpp"
#include "08_many_poems/many_poems_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_08_many_poems", "Lesson 08: many poems at once, weights below fp32",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(),
       tang::kv_cache_section(tang::CacheTimings::kOnRequest), tang::verse_section(),
       tang::many_poems_section()});
}
