// lesson_06_kvcache: the whole lesson, sections 1-6, ending with the KV cache.
#include "kvcache_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_06_kvcache", "Lesson 06: the KV cache (the whole lesson)",
                          tang::sections_up_to_06());
}
