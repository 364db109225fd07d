// lesson_07_verse: sections 1-7, ending with regular verse (格律).
#include "acrostic_section.hpp"
#include "continuation_section.hpp"
#include "kvcache_section.hpp"
#include "lesson.hpp"
#include "probabilities_section.hpp"
#include "temperature_section.hpp"
#include "topk_topp_section.hpp"
#include "verse_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_07_verse", "Lesson 07: regular verse (tones, rhyme, beam search)",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(),
       tang::kv_cache_section(tang::CacheTimings::kOnRequest), tang::verse_section()});
}
