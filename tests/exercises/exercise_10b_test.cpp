// exercise_10b_test: EXERCISE 10b, latent attention over a cache of latents,
// absorbed (lessons/10_cache_size/exercise/latent_attention.cpp).
//
//   ctest --preset yours -L '^yours_10b$'    your code
//   ctest --preset release -L exercise_10b    the reference solution
//
// The uncached model rebuilds every position's keys and values from its latent
// (kv = c @ kv_up^T, common/attention_inputs.cpp) and runs ordinary causal
// attention. Your step never rebuilds them, so it adds in another order: every
// output must be within 1e-4 of the uncached model's (the values here are about 1).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "10_cache_size/exercise/latent_attention.hpp"
#include "number_text.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace {

using tang::latent_attention_with_cache;
using tang::testing::exact;

constexpr std::size_t N = 24, C = 16, NH = 4, HS = C / NH, DC = 6, P = C + DC;

struct Sequence {
  std::vector<float> proj;   // (N, P) q | latent
  std::vector<float> kv_up;  // (2C, DC) keys, then values, from the latent
  std::vector<float> full;   // (N, C) the uncached model's attention output
};

Sequence random_sequence(std::uint64_t seed) {
  tang::Rng rng(seed);
  Sequence s;
  s.proj.resize(N * P);
  for (float& x : s.proj) x = rng.normal();
  s.kv_up.resize(2 * C * DC);
  for (float& x : s.kv_up) x = 0.4f * rng.normal();
  // the uncached model: keys and values rebuilt for every position
  std::vector<float> qkv(N * 3 * C), att(NH * N * N);
  for (std::size_t n = 0; n < N; ++n) {
    const float* row = s.proj.data() + n * P;
    std::copy(row, row + C, qkv.data() + n * 3 * C);
    tang::ops::matmul_forward(qkv.data() + n * 3 * C + C, row + C, s.kv_up.data(), nullptr, 1, DC,
                              2 * C);
  }
  s.full.resize(N * C);
  tang::ops::attention_forward(s.full.data(), att.data(), qkv.data(), 1, N, C, NH);
  return s;
}

void expect_cached_near_full(const std::vector<std::size_t>& steps, const std::string& how) {
  const Sequence s = random_sequence(steps.size() * 7 + steps.front());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> cache(N * DC, nan), out(N * C, nan);
  std::size_t start = 0;
  for (std::size_t T : steps) {
    latent_attention_with_cache(out.data() + start * C, s.proj.data() + start * P, cache.data(),
                                s.kv_up.data(), start, T, C, NH, DC);
    for (std::size_t t = start; t < start + T; ++t) {
      for (std::size_t i = 0; i < C; ++i) {
        ASSERT_NEAR(out[t * C + i], s.full[t * C + i], 1e-4f)
            << how << ": position " << t << " (step start " << start << ", T " << T << "), column "
            << i << " (head " << i / HS << ") is " << exact(out[t * C + i])
            << ", the model with rebuilt keys and values gives " << exact(s.full[t * C + i])
            << ". Check a = W_UK_h^T q_h (rows h HS .. of kv_up), the scale 1/sqrt(HS), the "
               "n = start+t+1 positions, and W_UV_h (rows C + h HS ..) applied to the weighted "
               "latent";
      }
    }
    start += T;
  }
  for (std::size_t j = 0; j < N; ++j) {
    for (std::size_t d = 0; d < DC; ++d) {
      ASSERT_EQ(cache[j * DC + d], s.proj[j * P + C + d])
          << how << ": cache row " << j << " must be the latent of position " << j
          << " (columns C .. C+d_c-1 of its proj row)";
    }
  }
}

TEST(Exercise10b, WholeSequenceInOneStep) {
  expect_cached_near_full({N}, "all 24 positions in one step (start = 0)");
}

TEST(Exercise10b, OneAtATime) {
  expect_cached_near_full(std::vector<std::size_t>(N, 1), "one position at a time");
}

TEST(Exercise10b, SeveralNewPositionsAfterACachedPrefix) {
  expect_cached_near_full({5, 3, 4, 1, 6, 5}, "steps of 5, 3, 4, 1, 6, 5 positions");
}

TEST(Exercise10b, TheFirstPositionGetsItsOwnValue) {
  const Sequence s = random_sequence(5);
  std::vector<float> cache(N * DC), out(C), value(2 * C);
  latent_attention_with_cache(out.data(), s.proj.data(), cache.data(), s.kv_up.data(), 0, 1, C, NH,
                              DC);
  tang::ops::matmul_forward(value.data(), s.proj.data() + C, s.kv_up.data(), nullptr, 1, DC, 2 * C);
  for (std::size_t i = 0; i < C; ++i) {
    ASSERT_NEAR(out[i], value[C + i], 1e-5f)
        << "position 0 sees only itself: its output must be W_UV c_0, column " << i;
  }
}

// A cache is reused: a new text starts at position 0 in rows an older text filled, so
// every row past start + t holds a finite, plausible latent; proj and out point into
// buffers that go on past the step's T rows. None of that may change the output.
TEST(Exercise10b, ReadsNothingPastTheNewPositions) {
  const Sequence s = random_sequence(45);
  tang::Rng rng(46);
  std::vector<float> cache(N * DC);
  for (float& x : cache) x = 2.0f * rng.normal();  // the older text's latents
  const float sentinel = 12345.0f;
  std::vector<float> out(N * C, sentinel);
  std::size_t start = 0;
  for (const std::size_t T : {5, 3}) {
    latent_attention_with_cache(out.data() + start * C, s.proj.data() + start * P, cache.data(),
                                s.kv_up.data(), start, T, C, NH, DC);
    start += T;
  }
  for (std::size_t i = 0; i < 8 * C; ++i) {
    ASSERT_NEAR(out[i], s.full[i], 1e-4f)
        << "a new text in a cache an older text filled: position " << i / C << ", column " << i % C
        << " is " << exact(out[i]) << ", the model with rebuilt keys and values gives "
        << exact(s.full[i])
        << ". Every cache row past start+t still holds the old text's latent: attend over rows "
           "0 .. start+t only (n = start+t+1), never the whole cache";
  }
  for (std::size_t i = 8 * C; i < N * C; ++i) {
    ASSERT_EQ(out[i], sentinel) << "after positions 0 .. 7, out row " << i / C
                                << " was written: out has T rows, and proj's rows past T are the "
                                   "next positions', not this step's";
  }
}

TEST(Exercise10b, NothingPastTheNewPositionsIsWritten) {
  const Sequence s = random_sequence(9);
  const float sentinel = 12345.0f;
  std::vector<float> cache(N * DC, sentinel), out(N * C, sentinel);
  latent_attention_with_cache(out.data(), s.proj.data(), cache.data(), s.kv_up.data(), 0, 6, C, NH,
                              DC);
  latent_attention_with_cache(out.data() + 6 * C, s.proj.data() + 6 * P, cache.data(),
                              s.kv_up.data(), 6, 2, C, NH, DC);
  for (std::size_t j = 8; j < N; ++j) {
    for (std::size_t d = 0; d < DC; ++d) {
      ASSERT_EQ(cache[j * DC + d], sentinel)
          << "after positions 0 .. 7, cache row " << j << " must not have been touched";
    }
    for (std::size_t i = 0; i < C; ++i)
      ASSERT_EQ(out[j * C + i], sentinel) << "out has T rows: row " << j << " is not yours";
  }
}

}  // namespace
