// The main() of every exercise test. ctest runs each one twice:
//
//   exercise_03_test           against the reference solution   (label exercise_03)
//   exercise_03_test --yours   against YOUR code                (label yours_03)
//
// With --yours the exercise's switch (common/exercise_code.hpp) runs your
// lessons/*/exercise/ file alone, without the reference beside it (the test is
// the judge), and for this exercise only: every other exercise a test happens to
// use (06b's timing draws with exercise 02's code) runs the reference solution,
// so each exercise's tests pass as soon as it is done.
#include <gtest/gtest.h>

#include <string_view>

#include "exercise_code.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // leaves the flags it does not know
  bool yours = false;
  for (int i = 1; i < argc; ++i) yours = yours || std::string_view(argv[i]) == "--yours";
  tang::choose_exercise_code(yours ? TANG_EXERCISE : "", /*compare=*/false);
  return RUN_ALL_TESTS();
}
