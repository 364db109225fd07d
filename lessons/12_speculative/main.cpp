// lesson_12_speculative: sections 1-12, ending on speculative decoding: a
// drafter's characters checked by the model in one cached forward pass.
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
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_12_speculative", "Lesson 12: speculative decoding",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section(),
       tang::kv_cache_section(tang::CacheTimings::kOnRequest), tang::verse_section(),
       tang::many_poems_section(), tang::inside_section(), tang::cache_size_section(),
       tang::server_section(), tang::speculative_section()});
}
