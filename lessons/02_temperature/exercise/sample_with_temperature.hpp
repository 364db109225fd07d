// exercise/sample_with_temperature.hpp: EXERCISE 02, drawing one character.
//
// Lesson 02 writes its poems with these two functions, and lessons 03-06 draw
// every character with sample_from: the default build compiles the reference
// solution (solution/sample_with_temperature.cpp), the `learner` preset YOUR
// file exercise/sample_with_temperature.cpp, whose comment says exactly what
// the functions must do. Check yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_02
//   build/learner/lessons/02_temperature/lesson_02_temperature
#pragma once

#include <span>

#include "tokenizer.hpp"

namespace tang::mine {

// The id whose slice of [0, 1) the coin falls into: walk the ids in order,
// adding up probabilities, until the running total passes the coin.
TokenId sample_from(std::span<const float> probabilities, float coin);

// One character drawn from softmax(logits / temperature) with one uniform coin;
// temperature 0 means the most likely character.
TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin);

}  // namespace tang::mine

// The same two functions as the reference solution has them (solution/, compiled a
// second time as tang::reference): the learner build draws with both and names the
// first character where yours chose otherwise (common/reference_check.hpp).
namespace tang::reference {
TokenId sample_from(std::span<const float> probabilities, float coin);
TokenId sample_with_temperature(std::span<const float> logits, float temperature, float coin);
}  // namespace tang::reference
