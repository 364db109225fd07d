// lesson_01_probabilities: next-character probabilities (sections 1-1 of the lesson).
#include "probabilities_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_01_probabilities", "Lesson 01: next-character probabilities", tang::sections_up_to_01());
}
