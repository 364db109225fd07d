// lesson_05_acrostic: sections 1-5, constraining what the model may write.
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "03_topk_topp/topk_topp_section.hpp"
#include "04_continuation/continuation_section.hpp"
#include "05_acrostic/acrostic_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_05_acrostic", "Lesson 05: acrostic",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section()});
}
