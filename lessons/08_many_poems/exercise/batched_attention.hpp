// exercise/batched_attention.hpp: EXERCISE 08b, one attention step for many
// sequences, each with its own cache and its own length.
//
// batched_forward.cpp calls this in every layer of a batched decoding step:
// the default build compiles the reference solution
// (solution/batched_attention.cpp), the `learner` preset YOUR file
// exercise/batched_attention.cpp, whose comment says exactly what it must do.
// Check yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_08b
//   build/learner/lessons/08_many_poems/lesson_08_many_poems --section 8
#pragma once

#include <cstddef>

namespace tang::mine {

void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH);

}  // namespace tang::mine

// The same function as the reference solution has it (solution/, compiled a second
// time as tang::reference): in the learner build forward_batch runs both and names
// the first poem, position and layer where yours differs (batched_attention_check.hpp).
namespace tang::reference {
void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH);
}  // namespace tang::reference
