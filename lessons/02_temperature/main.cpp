// lesson_02_temperature: temperature (sections 1-2 of the lesson).
#include "temperature_section.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_02_temperature", "Lesson 02: temperature", tang::sections_up_to_02());
}
