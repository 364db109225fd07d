// lesson_03_topk_topp: top-k and top-p (sections 1-3 of the lesson).
#include "topk_topp_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_03_topk_topp", "Lesson 03: top-k and top-p", tang::sections_up_to_03());
}
