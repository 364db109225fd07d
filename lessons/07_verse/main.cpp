// lesson_07_verse: sections 1-7, ending with regular verse (格律).
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "03_topk_topp/topk_topp_section.hpp"
#include "04_continuation/continuation_section.hpp"
#include "05_acrostic/acrostic_section.hpp"
#include "06_kvcache/kvcache_section.hpp"
#include "07_verse/verse_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_07_verse", "Lesson 07: regular verse (tones, rhyme, beam search)",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(),
       tang::kv_cache_section(tang::CacheTimings::kOnRequest), tang::verse_section()});
}
