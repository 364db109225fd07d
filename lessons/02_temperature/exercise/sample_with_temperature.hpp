// exercise/sample_with_temperature.hpp: EXERCISE 02, drawing one character.
//
// Lesson 02 writes its poems with these two functions, and every later lesson
// that samples draws each character with sample_from (lesson 03's sample_next;
// lesson 12's model drafter calls it too). They run the reference solution
// (solution/sample_with_temperature.cpp) unless started with --yours 02; then
// YOUR file exercise/sample_with_temperature.cpp, whose comment says exactly
// what the functions must do. Check yours with
//   cmake --build --preset release --target exercise_02_test
//   ctest --preset yours -L '^yours_02$'
//   build/release/lessons/02_temperature/lesson_02_temperature --yours 02
#pragma once

#include <functional>
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

// The reference solution's (solution/sample_with_temperature.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::sample_from) sample_from;
decltype(mine::sample_with_temperature) sample_with_temperature;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 02 yours, checked
// against it at every call (sample_with_temperature_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::sample_from) sample_from;
decltype(mine::sample_with_temperature) sample_with_temperature;

// How the switch compares two characters drawn with `coin`: the same; or the
// reference draws yours with a coin at most 1e-4 away (a running sum rounded in
// another order moves a border that far, a real mistake much further); or not.
struct Verdict;  // common/exercise_code.hpp
Verdict compare_draws(TokenId yours, TokenId theirs, float coin,
                      const std::function<TokenId(float coin)>& theirs_with);
}  // namespace tang
