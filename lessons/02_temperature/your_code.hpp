// your_code.hpp: how a lesson runs the learner's exercise code (--mine).
//
// The sections always demonstrate with the reference code. With --mine they
// also run the exercise library (exercise_NN_*, built from lessons/NN_x/
// exercise/*.cpp under the `learner` preset, from solution/*.cpp otherwise)
// and print its output next to the reference's. An exercise stub that is not
// done yet throws tang::NotImplemented; the lesson prints its one line
// ("your exercise is not done yet: complete <file>") and carries on.
#pragma once

#include <functional>

#include "lesson_options.hpp"
#include "poem_writer.hpp"

namespace tang {

// Prints "  -- yours (exercise NN, <file>) --" and runs body(), turning a
// NotImplemented into its one line. Does nothing unless --mine was given.
void run_yours(LessonContext& context, const std::string& exercise,
               const std::function<void()>& body);

// `count` poems written twice from the same seed, with the reference picker and
// with yours, printed in pairs; says whether every pair is identical.
void print_side_by_side(LessonContext& context, const Picker& reference, const Picker& yours,
                        std::size_t count);

}  // namespace tang
