// lesson_03_topk_topp: sections 1-3, cutting off the long tail.
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "03_topk_topp/topk_topp_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_03_topk_topp", "Lesson 03: top-k and top-p",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section()});
}
