// The switch of exercise 08b (common/exercise_code.hpp): the reference solution's
// batched attention, or with --yours 08b yours, checked against it on copies of
// the same caches: the outputs and the key and value rows written.
#include <vector>

#include "08_many_poems/exercise/batched_attention.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void batched_attention(float* out, const float* qkv, float* const* k_caches, float* const* v_caches,
                       const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH) {
  static ExerciseSwitch use("08b", "batched_attention");
  if (!use.yours()) {
    return reference::batched_attention(out, qkv, k_caches, v_caches, lengths, B, C, NH);
  }
  if (!use.compares()) {
    return mine::batched_attention(out, qkv, k_caches, v_caches, lengths, B, C, NH);
  }
  std::vector<std::vector<float>> k(B), v(B);  // (B) copies of rows 0 .. length of each cache
  std::vector<float*> k_rows(B), v_rows(B);
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t n = (lengths[b] + 1) * C;
    k[b].assign(k_caches[b], k_caches[b] + n), v[b].assign(v_caches[b], v_caches[b] + n);
    k_rows[b] = k[b].data(), v_rows[b] = v[b].data();
  }
  std::vector<float> theirs(B * C);
  reference::batched_attention(theirs.data(), qkv, k_rows.data(), v_rows.data(), lengths, B, C, NH);
  mine::batched_attention(out, qkv, k_caches, v_caches, lengths, B, C, NH);
  Verdict verdict = compare_floats({out, B * C}, theirs, 1e-4f);
  for (std::size_t b = 0; b < B && verdict.kind == Verdict::kSame; ++b) {
    verdict = compare_floats({k_caches[b], k[b].size()}, k[b], 0.0f);
    if (verdict.kind == Verdict::kSame)
      verdict = compare_floats({v_caches[b], v[b].size()}, v[b], 0.0f);
    if (verdict.kind != Verdict::kSame)
      verdict.detail = "the cache of poem " + std::to_string(b + 1) + ", " + verdict.detail;
  }
  use.check(verdict, counted(B, "poem"));
}

}  // namespace tang
