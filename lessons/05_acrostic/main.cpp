// lesson_05_acrostic: sections 1-5, constraining what the model may write.
#include "acrostic_section.hpp"
#include "continuation_section.hpp"
#include "lesson.hpp"
#include "probabilities_section.hpp"
#include "temperature_section.hpp"
#include "topk_topp_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(
      argc, argv, "lesson_05_acrostic", "Lesson 05: acrostic",
      {tang::probabilities_section(), tang::temperature_section(), tang::topk_topp_section(),
       tang::continuation_section(), tang::acrostic_section()});
}
