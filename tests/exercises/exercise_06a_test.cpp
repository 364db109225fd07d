// exercise_06a_test: EXERCISE 06a, the KV-cache step inside attention
// (lessons/06_kvcache/exercise/attention_with_cache.cpp).
//
//   ctest --preset yours -L '^yours_06a$'    your code
//   ctest --preset release -L exercise_06a    the reference solution
//
// The cached computation must give what the whole sequence at once gives:
// random q, k, v for N positions go through ops::attention_forward in one go,
// and through your attention_with_cache in pieces (a prefill, then one at a
// time, or several at a time); every output row must be the SAME BITS: both
// call ops::attend for each row over the same keys and values in the same order.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "06_kvcache/exercise/attention_with_cache.hpp"
#include "number_text.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace {

using tang::testing::exact;

using tang::attention_with_cache;
using tang::embed_with_offset;
using tang::TokenId;

constexpr std::size_t N = 24, C = 16, NH = 4;  // positions, width, heads (head size 4)

// Random embedding tables for a vocabulary of V (wte (V, C), wpe (N, C)) and N tokens.
struct RandomEmbedding {
  std::vector<float> wte, wpe;
  std::vector<TokenId> tokens;
};
RandomEmbedding random_embedding(std::uint64_t seed, std::size_t V) {
  tang::Rng rng(seed);
  RandomEmbedding e{std::vector<float>(V * C), std::vector<float>(N * C), std::vector<TokenId>(N)};
  for (float& x : e.wte) x = rng.normal();
  for (float& x : e.wpe) x = rng.normal();
  for (TokenId& t : e.tokens) t = static_cast<TokenId>(rng.below(V));
  return e;
}

// The first i < n where a and b hold different bits, or n.
std::size_t first_difference(const float* a, const float* b, std::size_t n) {
  std::size_t i = 0;
  while (i < n && std::memcmp(a + i, b + i, sizeof(float)) == 0) ++i;
  return i;
}

struct Sequence {
  std::vector<float> qkv;   // (N, 3C)
  std::vector<float> full;  // (N, C) attention over the whole sequence at once
};

Sequence random_sequence(std::uint64_t seed) {
  tang::Rng rng(seed);
  Sequence s;
  s.qkv.resize(N * 3 * C);
  for (float& x : s.qkv) x = rng.normal();
  s.full.resize(N * C);
  std::vector<float> att(NH * N * N);
  tang::ops::attention_forward(s.full.data(), att.data(), s.qkv.data(), 1, N, C, NH);
  return s;
}

// Feeds the sequence through your function in steps of the given sizes and
// checks every output row against the full computation.
void expect_cached_equals_full(const std::vector<std::size_t>& steps, const std::string& how) {
  const Sequence s = random_sequence(steps.size() * 31 + steps.front());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> k_cache(N * C, nan), v_cache(N * C, nan), out(N * C, nan);
  std::size_t start = 0;
  for (std::size_t T : steps) {
    attention_with_cache(out.data() + start * C, s.qkv.data() + start * 3 * C, k_cache.data(),
                         v_cache.data(), start, T, C, NH);
    for (std::size_t t = start; t < start + T; ++t) {
      const std::size_t i = first_difference(&out[t * C], &s.full[t * C], C);
      ASSERT_EQ(i, C)
          << how << ": position " << t << " (fed in the step with start = " << start
          << ", T = " << T << "), column " << i << " is " << exact(out[t * C + i])
          << ", attention over the whole sequence gives " << exact(s.full[t * C + i])
          << ". Position start+t attends to positions 0 .. start+t (the causal mask shifted by "
             "start), over the keys/values already in the cache plus the new ones: call "
             "ops::attend with n = start+t+1 and the cache rows (stride C), and the bits match";
    }
    start += T;
  }
  ASSERT_EQ(start, N);
  for (std::size_t j = 0; j < N; ++j) {
    for (std::size_t i = 0; i < C; ++i) {
      ASSERT_EQ(k_cache[j * C + i], s.qkv[j * 3 * C + C + i])
          << how << ": row " << j << " of k_cache must be the key of position " << j
          << " (columns C .. 2C-1 of its qkv row)";
      ASSERT_EQ(v_cache[j * C + i], s.qkv[j * 3 * C + 2 * C + i])
          << how << ": row " << j << " of v_cache must be the value of position " << j
          << " (columns 2C .. 3C-1 of its qkv row)";
    }
  }
}

TEST(Exercise06a, WholeSequenceInOneStepIsOrdinaryCausalAttention) {
  expect_cached_equals_full({N}, "all 24 positions in one step (start = 0)");
}

TEST(Exercise06a, OneAtATimeFromAnEmptyCache) {
  expect_cached_equals_full(std::vector<std::size_t>(N, 1), "one position at a time");
}

TEST(Exercise06a, PrefillThenOneAtATime) {
  std::vector<std::size_t> steps = {8};
  steps.resize(1 + N - 8, 1);
  expect_cached_equals_full(steps, "a prefill of 8, then one at a time");
}

TEST(Exercise06a, SeveralNewPositionsAfterACachedPrefix) {
  // T > 1 with start > 0: the mask must be shifted (tril with diagonal = start)
  expect_cached_equals_full({5, 3, 4, 1, 6, 5}, "steps of 5, 3, 4, 1, 6, 5 positions");
}

TEST(Exercise06a, TheCoursesShapeGivesTheSameBitsToo) {
  // 128 dims, 4 heads of 32, 40 positions: a prefill of 10, then one at a time
  const std::size_t n = 40, c = 128, nh = 4;
  tang::Rng rng(6);
  std::vector<float> qkv(n * 3 * c), full(n * c), att(nh * n * n);
  for (float& x : qkv) x = rng.normal();
  tang::ops::attention_forward(full.data(), att.data(), qkv.data(), 1, n, c, nh);
  std::vector<float> k_cache(n * c), v_cache(n * c), out(n * c);
  std::size_t start = 0;
  while (start < n) {
    const std::size_t T = start == 0 ? 10 : 1;
    attention_with_cache(out.data() + start * c, qkv.data() + start * 3 * c, k_cache.data(),
                         v_cache.data(), start, T, c, nh);
    start += T;
  }
  const std::size_t i = first_difference(out.data(), full.data(), n * c);
  ASSERT_EQ(i, n * c) << "128 dims, 4 heads, a prefill of 10 then one at a time: position "
                      << (i / c) << ", column " << (i % c) << " is " << exact(out[i])
                      << ", attention over the whole sequence gives " << exact(full[i])
                      << " (call ops::attend for every new row, as ops::attention_forward does)";
}

TEST(Exercise06a, TheFirstPositionSeesOnlyItself) {
  const Sequence s = random_sequence(5);
  std::vector<float> k_cache(N * C), v_cache(N * C), out(C);
  attention_with_cache(out.data(), s.qkv.data(), k_cache.data(), v_cache.data(), 0, 1, C, NH);
  for (std::size_t i = 0; i < C; ++i) {
    ASSERT_NEAR(out[i], s.qkv[2 * C + i], 1e-6f)
        << "position 0 can only attend to itself, so its output must be its own value vector";
  }
}

TEST(Exercise06a, NothingPastTheNewPositionsIsWritten) {
  const Sequence s = random_sequence(9);
  const float sentinel = 12345.0f;
  std::vector<float> k_cache(N * C, sentinel), v_cache(N * C, sentinel), out(N * C, sentinel);
  attention_with_cache(out.data(), s.qkv.data(), k_cache.data(), v_cache.data(), 0, 6, C, NH);
  attention_with_cache(out.data() + 6 * C, s.qkv.data() + 6 * 3 * C, k_cache.data(), v_cache.data(),
                       6, 2, C, NH);
  for (std::size_t j = 8; j < N; ++j) {
    for (std::size_t i = 0; i < C; ++i) {
      ASSERT_EQ(k_cache[j * C + i], sentinel)
          << "after positions 0 .. 7, row " << j << " of k_cache must not have been touched";
      ASSERT_EQ(v_cache[j * C + i], sentinel)
          << "after positions 0 .. 7, row " << j << " of v_cache must not have been touched";
      ASSERT_EQ(out[j * C + i], sentinel)
          << "out has T rows: row " << j << " is not yours to write";
    }
  }
}

// A cache is reused: a new text starts at position 0 in rows a longer, older text
// filled. qkv, tokens and out point into buffers that go on past the step's T rows.
// Rows past start + t (the older text's keys and values) and the rows after the step's
// T must change nothing: they are finite, plausible numbers, so reading one moves the output.
TEST(Exercise06a, ReadsNothingPastTheNewPositions) {
  const Sequence old_text = random_sequence(41), s = random_sequence(42);
  std::vector<float> k_cache(N * C), v_cache(N * C), scratch(N * C);
  attention_with_cache(scratch.data(), old_text.qkv.data(), k_cache.data(), v_cache.data(), 0, N, C,
                       NH);
  const float sentinel = 12345.0f;
  std::vector<float> out(N * C, sentinel);
  std::size_t start = 0;
  for (const std::size_t T : {5, 3}) {
    attention_with_cache(out.data() + start * C, s.qkv.data() + start * 3 * C, k_cache.data(),
                         v_cache.data(), start, T, C, NH);
    start += T;
  }
  for (std::size_t t = 0; t < 8; ++t) {
    const std::size_t i = first_difference(&out[t * C], &s.full[t * C], C);
    ASSERT_EQ(i, C) << "a new text in a cache an older, longer text filled: position " << t
                    << ", column " << i << " is " << exact(out[t * C + i])
                    << ", attention over the new text gives " << exact(s.full[t * C + i])
                    << ". Cache rows past start+t still hold the old text's keys and values: "
                       "attend over rows 0 .. start+t only (n = start+t+1), never the whole cache";
  }
  for (std::size_t i = 8 * C; i < N * C; ++i) {
    ASSERT_EQ(out[i], sentinel) << "after positions 0 .. 7, out row " << i / C
                                << " was written: out has T rows, and qkv's rows past T are the "
                                   "next positions', not this step's";
  }

  // embed_with_offset: tokens and out go on past T too
  const std::size_t V = 7;
  const auto [wte, wpe, tokens] = random_embedding(43, V);
  std::vector<float> embedded(N * C, sentinel);
  start = 0;
  for (const std::size_t T : {5, 3}) {
    embed_with_offset(embedded.data() + start * C, tokens.data() + start, T, start, wte.data(),
                      wpe.data(), C);
    start += T;
  }
  for (std::size_t i = 8 * C; i < N * C; ++i) {
    ASSERT_EQ(embedded[i], sentinel)
        << "embed_with_offset after positions 0 .. 7 wrote out row " << i / C
        << ": the step has T rows; tokens[T] and beyond (the buffer goes on) are not its own";
  }
}

TEST(Exercise06a, EmbeddingPositionsStartAtStart) {
  const std::size_t V = 7;
  const auto [wte, wpe, tokens] = random_embedding(4, V);
  std::vector<float> full(N * C), yours(N * C);
  tang::ops::encoder_forward(full.data(), tokens.data(), wte.data(), wpe.data(), 1, N, C);
  // a prefill of 10, then 1, 1, then 12
  std::size_t start = 0;
  for (std::size_t T : {10, 1, 1, 12}) {
    embed_with_offset(yours.data() + start * C, tokens.data() + start, T, start, wte.data(),
                      wpe.data(), C);
    start += T;
  }
  for (std::size_t t = 0; t < N; ++t) {
    for (std::size_t i = 0; i < C; ++i) {
      ASSERT_EQ(yours[t * C + i], full[t * C + i])
          << "position " << t << ": the embedding must be wte[token] + wpe[" << t
          << "], the ABSOLUTE position (start + t), not the index inside the step";
    }
  }
}

}  // namespace
