// exercise/batched_attention.hpp: EXERCISE 08b, one attention step for many
// sequences, each with its own cache and its own length.
//
// batched_forward.cpp calls this in every layer of a batched decoding step:
// it runs the reference solution (solution/batched_attention.cpp) unless the
// lesson is started with --yours 08b; then YOUR file exercise/batched_attention.cpp,
// whose comment says exactly what it must do. Check yours with
//   cmake --build --preset release
//   ctest --preset yours -L '^yours_08b$'
//   build/release/lessons/08_many_poems/lesson_08_many_poems --yours 08b --section 8
#pragma once

#include <cstddef>

namespace tang::mine {

void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH);

}  // namespace tang::mine

// The reference solution's (solution/batched_attention.cpp).
namespace tang::reference {
void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH);
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 08b yours, checked
// against it at every call (batched_attention_switch.cpp, common/exercise_code.hpp).
namespace tang {
void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH);
}  // namespace tang
