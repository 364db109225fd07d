// lesson_08_many_poems: sections 1-8, ending with batched decoding and smaller weights.
#include "acrostic_section.hpp"
#include "continuation_section.hpp"
#include "kvcache_section.hpp"
#include "lesson.hpp"
#include "many_poems_section.hpp"
#include "probabilities_section.hpp"
#include "temperature_section.hpp"
#include "topk_topp_section.hpp"
#include "verse_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_08_many_poems", "Lesson 08: many poems at once, weights below fp32",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(),
       tang::kv_cache_section(tang::CacheTimings::kOnRequest), tang::verse_section(),
       tang::many_poems_section()});
}
