// lesson_05_acrostic: acrostic, constrained decoding (sections 1-5 of the lesson).
#include "acrostic_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_05_acrostic", "Lesson 05: acrostic, constrained decoding", tang::sections_up_to_05());
}
