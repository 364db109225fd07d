// lesson_04_continuation: sections 1-4, writing on from a given opening.
#include "continuation_section.hpp"
#include "lesson.hpp"
#include "probabilities_section.hpp"
#include "temperature_section.hpp"
#include "topk_topp_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_04_continuation", "Lesson 04: continuation",
                          {tang::probabilities_section(), tang::temperature_section(),
                           tang::topk_topp_section(), tang::continuation_section()});
}
