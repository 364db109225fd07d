// lesson_02_temperature: sections 1-2, drawing characters at a temperature.
#include "01_probabilities/probabilities_section.hpp"
#include "02_temperature/temperature_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_02_temperature", "Lesson 02: temperature",
                          {tang::probabilities_section(), tang::temperature_section()});
}
