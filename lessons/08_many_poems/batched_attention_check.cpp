#include "batched_attention_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "exercise/batched_attention.hpp"

namespace tang {

namespace {
// Attention outputs are averages of values of size ~1: adding in another order
// moves them by ~1e-7, a wrong row or head by ~0.1 and more.
constexpr float kRoundingReach = 1e-4f;
}  // namespace

BatchedAttentionCheck::BatchedAttentionCheck(std::ostream& report, bool enabled)
    : report_(report), enabled_(enabled), to_terminal_(&report == &std::cerr) {}

void BatchedAttentionCheck::run_reference(const float* qkv, float* const* k_caches,
                                          float* const* v_caches, const std::size_t* lengths,
                                          std::size_t B, std::size_t C, std::size_t NH) {
  if (!enabled_ || reported()) return;
  B_ = B, C_ = C;
  lengths_.assign(lengths, lengths + B);
  k_.resize(B), v_.resize(B);
  std::vector<float*> k_rows(B), v_rows(B);
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t filled = lengths[b] * C;  // the rows already there; one more is written
    k_[b].assign(k_caches[b], k_caches[b] + filled);
    v_[b].assign(v_caches[b], v_caches[b] + filled);
    k_[b].resize(filled + C), v_[b].resize(filled + C);
    k_rows[b] = k_[b].data(), v_rows[b] = v_[b].data();
  }
  out_.assign(B * C, 0.0f);
  reference::batched_attention(out_.data(), qkv, k_rows.data(), v_rows.data(), lengths, B, C, NH);
}

void BatchedAttentionCheck::compare(const float* out, float* const* k_caches,
                                    float* const* v_caches, std::size_t layer) {
  if (!enabled_ || reported()) return;
  for (std::size_t b = 0; b < B_; ++b) {
    const std::size_t row = lengths_[b] * C_;  // the key and value rows this step writes
    float largest = 0.0f;
    auto note = [&largest](float yours, float theirs) {
      const float d = std::fabs(yours - theirs);
      largest = std::max(largest, std::isnan(d) ? INFINITY : d);  // a NaN is a real difference
    };
    for (std::size_t i = 0; i < C_; ++i) {
      note(out[b * C_ + i], out_[b * C_ + i]);
      note(k_caches[b][row + i], k_[b][row + i]);
      note(v_caches[b][row + i], v_[b][row + i]);
    }
    if (largest == 0.0f) continue;  // the same numbers
    reported() = true;
    char line[256];
    std::snprintf(line, sizeof line,
                  "note: poem %zu, position %zu (0 is the newline before it), layer %zu: your "
                  "batched_attention is up to %.2g away from the reference solution's "
                  "(exercise 08b), on the same query, keys and values; ",
                  b + 1, lengths_[b], layer + 1, static_cast<double>(largest));
    report_ << line;
    if (largest < kRoundingReach) {
      report_ << "only rounding (your sums run in another order; the exercise's contract says "
                 "which order gives the same bits)\n";
    } else {
      report_ << "a real difference: ctest --preset learner -L '^exercise_08b$'\n";
    }
    return;
  }
}

}  // namespace tang
