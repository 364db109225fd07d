// exercise/sample_with_temperature.hpp: EXERCISE 02, the multinomial step.
//
// You write this function in exercise/sample_with_temperature.cpp (the comment
// there says exactly what it must do). Check it with
//   cmake --preset learner && cmake --build --preset learner --target exercise_tests
//   ctest --preset learner -L exercise_02
// and see it write poems next to the reference with
//   build/learner/lessons/02_temperature/lesson_02_temperature --mine
// The reference solution is solution/sample_with_temperature.cpp (docs/exercises.md).
#pragma once

#include <span>

#include "tokenizer.hpp"

namespace tang::mine {

// One character drawn from softmax(logits / temperature) with one uniform coin.
TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin);

}  // namespace tang::mine
