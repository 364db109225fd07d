// exercise_10a_test: EXERCISE 10a, grouped-query attention over a cache
// (lessons/10_cache_size/exercise/grouped_attention.cpp).
//
//   ctest --preset yours -L '^yours_10a$'    your code
//   ctest --preset release -L exercise_10a    the reference solution
//
// The uncached model spreads each key/value head over the query heads that
// read it and runs ordinary causal attention (common/attention_inputs.cpp, then
// ops::attention_forward). Your cached step, fed the same positions in pieces,
// must give every output row in the SAME BITS: each head's output is the same
// ops::attend over the same keys and values in the same order. The cache is kept
// head by head, (2, KVH, capacity, HS); the tests give it more rows than the text.

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "10_cache_size/exercise/grouped_attention.hpp"
#include "number_text.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace {

using tang::grouped_attention_with_cache;
using tang::testing::exact;

constexpr std::size_t N = 24, C = 16, NH = 4, HS = C / NH;  // positions, width, heads of 4
constexpr std::size_t kCapacity = 30;                       // cache rows per head

// Where key head g (value head g with value = true) of position j sits in the cache.
std::size_t at(std::size_t KVH, bool value, std::size_t g, std::size_t j) {
  return ((value ? KVH : 0) + g) * kCapacity * HS + j * HS;
}

struct Sequence {
  std::size_t KVH, W, P;
  std::vector<float> proj;  // (N, P) q | keys (KVH, HS) | values (KVH, HS)
  std::vector<float> full;  // (N, C) the uncached model's attention output
};

Sequence random_sequence(std::size_t KVH, std::uint64_t seed) {
  Sequence s{KVH, 2 * KVH * HS, C + 2 * KVH * HS, {}, {}};
  tang::Rng rng(seed);
  s.proj.resize(N * s.P);
  for (float& x : s.proj) x = rng.normal();
  // the uncached model: every query head gets its group's keys and values
  std::vector<float> qkv(N * 3 * C), att(NH * N * N);
  for (std::size_t n = 0; n < N; ++n) {
    const float* row = s.proj.data() + n * s.P;
    std::copy(row, row + C, qkv.data() + n * 3 * C);
    for (std::size_t h = 0; h < NH; ++h) {
      const std::size_t g = h / (NH / KVH);
      std::copy(row + C + g * HS, row + C + (g + 1) * HS, qkv.data() + n * 3 * C + C + h * HS);
      std::copy(row + C + KVH * HS + g * HS, row + C + KVH * HS + (g + 1) * HS,
                qkv.data() + n * 3 * C + 2 * C + h * HS);
    }
  }
  s.full.resize(N * C);
  tang::ops::attention_forward(s.full.data(), att.data(), qkv.data(), 1, N, C, NH);
  return s;
}

void expect_cached_equals_full(std::size_t KVH, const std::vector<std::size_t>& steps,
                               const std::string& how) {
  const Sequence s = random_sequence(KVH, KVH * 101 + steps.size());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> cache(kCapacity * s.W, nan), out(N * C, nan);
  std::size_t start = 0;
  for (std::size_t T : steps) {
    grouped_attention_with_cache(out.data() + start * C, s.proj.data() + start * s.P, cache.data(),
                                 kCapacity, start, T, C, NH, KVH);
    for (std::size_t t = start; t < start + T; ++t) {
      for (std::size_t i = 0; i < C; ++i) {
        ASSERT_EQ(std::memcmp(&out[t * C + i], &s.full[t * C + i], sizeof(float)), 0)
            << how << ", " << KVH << " key/value heads: position " << t << " (step start " << start
            << ", T " << T << "), column " << i << " (query head " << i / HS << ") is "
            << exact(out[t * C + i]) << ", the uncached model gives " << exact(s.full[t * C + i])
            << ". Query head h reads key/value head h / (NH / KVH); call ops::attend for one "
               "head with C = HS, NH = 1, row stride HS and n = start+t+1";
      }
    }
    start += T;
  }
  for (std::size_t j = 0; j < N; ++j) {
    for (std::size_t g = 0; g < KVH; ++g) {
      for (std::size_t i = 0; i < HS; ++i) {
        ASSERT_EQ(cache[at(KVH, false, g, j) + i], s.proj[j * s.P + C + g * HS + i])
            << how << ": key head " << g << ", position " << j << " must sit at (g capacity + j) "
            << "HS in the cache, copied from columns C + g HS .. of its proj row";
        ASSERT_EQ(cache[at(KVH, true, g, j) + i], s.proj[j * s.P + C + (KVH + g) * HS + i])
            << how << ": value head " << g << ", position " << j
            << " must sit at ((KVH + g) capacity + j) HS, copied from columns C + (KVH + g) HS ..";
      }
    }
  }
}

TEST(Exercise10a, GroupedOneAtATime) {
  expect_cached_equals_full(2, std::vector<std::size_t>(N, 1), "one position at a time");
}

TEST(Exercise10a, GroupedPrefillThenSteps) {
  expect_cached_equals_full(2, {8, 1, 1, 5, 3, 6}, "a prefill of 8, then steps of 1, 1, 5, 3, 6");
}

TEST(Exercise10a, MultiQueryEveryHeadReadsTheOneKeyValueHead) {
  expect_cached_equals_full(1, {5, 3, 4, 1, 6, 5}, "steps of 5, 3, 4, 1, 6, 5");
}

TEST(Exercise10a, OneKeyValueHeadPerQueryHeadIsLessonSixCache) {
  expect_cached_equals_full(NH, {10, 1, 13}, "a prefill of 10, then 1 and 13");
}

// 8 query heads in 2 groups of 4: query head h reads key/value head h / 4 (not h / 2,
// and not h % 2, which 4 heads in 2 groups cannot tell apart).
TEST(Exercise10a, EightHeadsInTwoGroupsOfFour) {
  constexpr std::size_t nh = 8, kvh = 2, hs = C / nh, w = 2 * kvh * hs, p = C + w;
  tang::Rng rng(77);
  std::vector<float> proj(N * p), qkv(N * 3 * C), full(N * C), att(nh * N * N);
  for (float& x : proj) x = rng.normal();
  for (std::size_t n = 0; n < N; ++n) {  // the uncached model's spread of the two heads
    const float* row = proj.data() + n * p;
    std::copy(row, row + C, qkv.data() + n * 3 * C);
    for (std::size_t h = 0; h < nh; ++h) {
      const std::size_t g = h / (nh / kvh);
      std::copy(row + C + g * hs, row + C + (g + 1) * hs, qkv.data() + n * 3 * C + C + h * hs);
      std::copy(row + C + (kvh + g) * hs, row + C + (kvh + g + 1) * hs,
                qkv.data() + n * 3 * C + 2 * C + h * hs);
    }
  }
  tang::ops::attention_forward(full.data(), att.data(), qkv.data(), 1, N, C, nh);
  std::vector<float> cache(kCapacity * w), out(N * C);
  std::size_t start = 0;
  for (std::size_t T : {7, 1, 16}) {
    grouped_attention_with_cache(out.data() + start * C, proj.data() + start * p, cache.data(),
                                 kCapacity, start, T, C, nh, kvh);
    start += T;
  }
  for (std::size_t i = 0; i < N * C; ++i) {
    ASSERT_EQ(std::memcmp(&out[i], &full[i], sizeof(float)), 0)
        << "8 heads, 2 key/value heads: position " << i / C << ", query head " << (i % C) / hs
        << " is " << exact(out[i]) << ", the uncached model gives " << exact(full[i])
        << ". Query head h reads key/value head h / (NH / KVH) = h / 4 here";
  }
}

// A cache is reused: a new text starts at position 0 in rows an older text filled, so
// every row past start + t holds finite, plausible keys and values; proj and out point
// into buffers that go on past the step's T rows. None of that may change the output.
TEST(Exercise10a, ReadsNothingPastTheNewPositions) {
  const Sequence s = random_sequence(2, 43);
  tang::Rng rng(44);
  std::vector<float> cache(kCapacity * s.W);
  for (float& x : cache) x = rng.normal();  // the older text's keys and values
  const float sentinel = 12345.0f;
  std::vector<float> out(N * C, sentinel);
  std::size_t start = 0;
  for (const std::size_t T : {5, 3}) {
    grouped_attention_with_cache(out.data() + start * C, s.proj.data() + start * s.P, cache.data(),
                                 kCapacity, start, T, C, NH, 2);
    start += T;
  }
  for (std::size_t i = 0; i < 8 * C; ++i) {
    ASSERT_EQ(std::memcmp(&out[i], &s.full[i], sizeof(float)), 0)
        << "a new text in a cache an older text filled: position " << i / C << ", column " << i % C
        << " is " << exact(out[i]) << ", the uncached model gives " << exact(s.full[i])
        << ". Every cache row past start+t still holds the old text's keys and values: attend "
           "over rows 0 .. start+t of the head only (n = start+t+1), never the whole capacity";
  }
  for (std::size_t i = 8 * C; i < N * C; ++i) {
    ASSERT_EQ(out[i], sentinel) << "after positions 0 .. 7, out row " << i / C
                                << " was written: out has T rows, and proj's rows past T are the "
                                   "next positions', not this step's";
  }
}

TEST(Exercise10a, TheFirstPositionSeesOnlyItself) {
  const Sequence s = random_sequence(2, 5);
  std::vector<float> cache(kCapacity * s.W), out(C);
  grouped_attention_with_cache(out.data(), s.proj.data(), cache.data(), kCapacity, 0, 1, C, NH, 2);
  for (std::size_t h = 0; h < NH; ++h) {
    const std::size_t g = h / 2;
    for (std::size_t i = 0; i < HS; ++i) {
      ASSERT_NEAR(out[h * HS + i], s.proj[C + 2 * HS + g * HS + i], 1e-6f)
          << "position 0 sees only itself: query head " << h << "'s output must be value head " << g
          << " of position 0";
    }
  }
}

TEST(Exercise10a, NothingPastTheNewPositionsIsWritten) {
  const Sequence s = random_sequence(2, 9);
  const float sentinel = 12345.0f;
  std::vector<float> cache(kCapacity * s.W, sentinel), out(N * C, sentinel);
  grouped_attention_with_cache(out.data(), s.proj.data(), cache.data(), kCapacity, 0, 6, C, NH, 2);
  grouped_attention_with_cache(out.data() + 6 * C, s.proj.data() + 6 * s.P, cache.data(), kCapacity,
                               6, 2, C, NH, 2);
  for (bool value : {false, true}) {
    for (std::size_t g = 0; g < 2; ++g) {
      for (std::size_t j = 8; j < kCapacity; ++j) {
        for (std::size_t i = 0; i < HS; ++i) {
          ASSERT_EQ(cache[at(2, value, g, j) + i], sentinel)
              << "after positions 0 .. 7, row " << j << " of " << (value ? "value" : "key")
              << " head " << g << " must not have been touched";
        }
      }
    }
  }
  for (std::size_t j = 8; j < N; ++j) {
    for (std::size_t i = 0; i < C; ++i)
      ASSERT_EQ(out[j * C + i], sentinel) << "out has T rows: row " << j << " is not yours";
  }
}

}  // namespace
