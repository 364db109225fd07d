// EXERCISE 08b: the attention of one decoding step for B sequences at once.
//
// void batched_attention(out, qkv, k_caches, v_caches, lengths, B, C, NH)
//
//   out       (B, C)   write: row b is sequence b's attention output
//   qkv       (B, 3C)  row b: sequence b's new query | key | value (C each)
//   k_caches  (B)      k_caches[b]: sequence b's keys of this layer, (T_max, C),
//                      rows 0 .. lengths[b]-1 already filled
//   v_caches  (B)      the same for its values
//   lengths   (B)      how many positions sequence b's cache holds before this step
//   B, C, NH           sequences, channels, heads (C is a multiple of NH)
//
// For every sequence b:
//   1. copy its new key (columns C .. 2C-1 of qkv row b) into row lengths[b]
//      of k_caches[b], and its new value (columns 2C .. 3C-1) into row
//      lengths[b] of v_caches[b];
//   2. let its query (columns 0 .. C-1) attend over rows 0 .. lengths[b] of
//      its own caches (lengths[b] + 1 positions, the new one included) with
//      ops::attend (common/ops.hpp), which needs NH x (lengths[b] + 1) floats
//      of scratch and takes the distance between two cache rows, C.
// The sequences are independent: each sees only its own cache, and they may
// be at different positions (poems started at different times, or of
// different lengths). Do not change lengths; the caller moves each cache on.
//
// Exercise 06a's attention_with_cache is the same step for one sequence, and
// the lesson checks that yours gives the same bits: a poem written in a batch
// must be the poem written alone.
// Tests: ctest --preset yours -L '^yours_08b$' (tests/exercises/exercise_08b_test.cpp).

#include "08_many_poems/exercise/batched_attention.hpp"

#include "errors.hpp"

namespace tang::mine {

void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH) {
  (void)out, (void)qkv, (void)k_caches, (void)v_caches, (void)lengths, (void)B, (void)C, (void)NH;
  throw NotImplemented(
      "not implemented yet: see exercise 08b "
      "(lessons/08_many_poems/exercise/batched_attention.cpp)");
}

}  // namespace tang::mine
