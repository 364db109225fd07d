// SOLUTION to exercise 06a (the learner's file is exercise/attention_with_cache.cpp,
// whose comment specifies the behaviour).
//
// Written the way the seed's gpt.py does it, one head at a time as matrices:
//   scores (T, total) = q (T, HS) @ K^T (HS, total) / sqrt(HS)
//   scores masked with tril(diagonal = start), softmax row by row
//   out    (T, HS)    = scores (T, total) @ V (total, HS)
// where total = start + T. (common/gpt.cpp's cached_attention computes the
// same thing one query at a time.)

#include "exercise/attention_with_cache.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "next_char.hpp"

namespace tang::mine {

void attention_with_cache(float* out, const float* qkv, float* k_cache, float* v_cache,
                          std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  // 1. append the keys and values of the new positions start .. start+T-1
  for (std::size_t t = 0; t < T; ++t) {
    const float* row = qkv + t * 3 * C;  // q | k | v
    std::memcpy(k_cache + (start + t) * C, row + C, C * sizeof(float));
    std::memcpy(v_cache + (start + t) * C, row + 2 * C, C * sizeof(float));
  }

  // 2. attend over all positions 0 .. total-1, one head at a time
  const std::size_t total = start + T, HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int t_rows = static_cast<int>(T), cols = static_cast<int>(total), hs = static_cast<int>(HS),
            qkv_stride = static_cast<int>(3 * C), c = static_cast<int>(C);
  std::vector<float> scores(T * total);  // (T, total) one head's weights
  for (std::size_t h = 0; h < NH; ++h) {
    const float* q = qkv + h * HS;           // (T, HS), row stride 3C
    const float* keys = k_cache + h * HS;    // (total, HS), row stride C
    const float* values = v_cache + h * HS;  // (total, HS), row stride C
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, t_rows, cols, hs, scale, q, qkv_stride,
                keys, c, 0.0f, scores.data(), cols);
    for (std::size_t i = 0; i < T; ++i) {
      // new row i is position start+i: it may see columns 0 .. start+i (tril, diagonal = start)
      const std::span<float> row(scores.data() + i * total, total);
      std::fill(row.begin() + static_cast<std::ptrdiff_t>(start + i + 1), row.end(),
                -std::numeric_limits<float>::infinity());
      softmax_in_place(row);  // exp(-inf) = 0: masked positions get weight 0
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, t_rows, hs, cols, 1.0f, scores.data(),
                cols, values, c, 0.0f, out + h * HS, c);
  }
}

void embed_with_offset(float* out, const TokenId* tokens, std::size_t T, std::size_t start,
                       const float* wte, const float* wpe, std::size_t C) {
  for (std::size_t t = 0; t < T; ++t) {
    const float* token_row = wte + static_cast<std::size_t>(tokens[t]) * C;
    const float* position_row = wpe + (start + t) * C;  // absolute position, not t
    for (std::size_t i = 0; i < C; ++i) out[t * C + i] = token_row[i] + position_row[i];
  }
}

}  // namespace tang::mine
