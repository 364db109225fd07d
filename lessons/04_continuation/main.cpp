// lesson_04_continuation: sections 1-4, writing on from a given opening.
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "03_topk_topp/topk_topp_section.hpp"
#include "04_continuation/continuation_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_04_continuation", "Lesson 04: continuation",
                          {tang::probabilities_section(), tang::temperature_section(),
                           tang::topk_topp_section(), tang::continuation_section()});
}
