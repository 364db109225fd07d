// lesson_03_topk_topp: sections 1-3, cutting off the long tail.
#include "lesson.hpp"
#include "probabilities_section.hpp"
#include "temperature_section.hpp"
#include "topk_topp_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_03_topk_topp", "Lesson 03: top-k and top-p",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section()});
}
