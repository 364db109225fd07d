// lesson_04_continuation: continuation (sections 1-4 of the lesson).
#include "continuation_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_04_continuation", "Lesson 04: continuation", tang::sections_up_to_04());
}
