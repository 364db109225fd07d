// lesson_01_probabilities: what the model says comes next.
#include "01_probabilities/probabilities_section.hpp"
#include "lesson.hpp"

int main(int argc, char** argv) {
  return tang::run_lesson(argc, argv, "lesson_01_probabilities",
                          "Lesson 01: next-character probabilities",
                          {tang::probabilities_section()});
}
