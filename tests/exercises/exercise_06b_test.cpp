// exercise_06b_test: EXERCISE 06b, a block-512 model timed with and without
// the KV cache (lessons/06_kvcache/exercise/block512_timing.cpp).
//
//   ctest --preset yours -L '^yours_06b$'    your code
//   ctest --preset release -L exercise_06b    the reference solution
//
// The tests check what must hold on any machine: the model's shape, the same
// text both ways, n characters, times measured. They never check how fast it is
// (lesson_06_kvcache prints the ratio for 400 characters at the end of section 6).

#include <gtest/gtest.h>

#include <stdexcept>

#include "06_kvcache/exercise/block512_timing.hpp"
#include "utf8.hpp"

namespace {

using tang::time_block512;

TEST(Exercise06b, TheModelHasTheCoursesShapeWithContext512) {
  const tang::CacheRatio r = time_block512(8, 1);
  EXPECT_EQ(r.config.block_size, 512u) << "the exercise's model has a context (block_size) of 512";
  EXPECT_EQ(r.config.n_layer, 4u) << "4 layers, as the course's model";
  EXPECT_EQ(r.config.n_head, 4u) << "4 heads, as the course's model";
  EXPECT_EQ(r.config.n_embd, 128u) << "128 dimensions, as the course's model";
  EXPECT_GT(r.config.vocab_size, 0u) << "the config must describe the model that was timed";
}

TEST(Exercise06b, SameTextWithAndWithoutTheCache) {
  const tang::CacheRatio r = time_block512(60, 2024);
  EXPECT_EQ(r.text_with_cache, r.text_without_cache)
      << "the cache only skips repeated work: with the same seed both ways must write the same "
         "60 characters";
  EXPECT_EQ(tang::utf8_split(r.text_without_cache).size(), 60u)
      << "text_without_cache must hold exactly the 60 characters written (newlines count)";
  EXPECT_EQ(tang::utf8_split(r.text_with_cache).size(), 60u)
      << "text_with_cache must hold exactly the 60 characters written (newlines count)";
}

TEST(Exercise06b, TimesAndRatioAreFilledIn) {
  const tang::CacheRatio r = time_block512(30, 3);
  EXPECT_GT(r.without_cache_ms, 0.0)
      << "without_cache_ms: the time to write without the cache, in ms";
  EXPECT_GT(r.with_cache_ms, 0.0) << "with_cache_ms: the time to write with the cache, in ms";
  EXPECT_NEAR(r.ratio, r.without_cache_ms / r.with_cache_ms, 1e-9 * r.ratio + 1e-12)
      << "ratio must be without_cache_ms / with_cache_ms";
}

TEST(Exercise06b, TheSeedDecidesTheText) {
  const tang::CacheRatio a = time_block512(20, 5), b = time_block512(20, 5),
                         c = time_block512(20, 6);
  EXPECT_EQ(a.text_with_cache, b.text_with_cache)
      << "the same seed must give the same model and the same text";
  EXPECT_NE(a.text_with_cache, c.text_with_cache)
      << "seeds 5 and 6 gave the same 20 characters: the seed must drive both the weights and "
         "the sampling";
}

TEST(Exercise06b, LengthsOutsideTheContextAreAnError) {
  EXPECT_THROW(time_block512(0, 1), std::invalid_argument)
      << "n_chars = 0 must throw std::invalid_argument";
  EXPECT_THROW(time_block512(512, 1), std::invalid_argument)
      << "n_chars = 512 does not fit after the opening newline in a context of 512: throw "
         "std::invalid_argument";
}

TEST(Exercise06b, TextsLongerThanTheOldContextOf128) {
  const tang::CacheRatio r = time_block512(140, 7);
  EXPECT_EQ(tang::utf8_split(r.text_with_cache).size(), 140u)
      << "140 characters fit in a context of 512: all must be written";
  EXPECT_EQ(r.text_with_cache, r.text_without_cache)
      << "140 characters, with and without the cache: the same text";
}

}  // namespace
