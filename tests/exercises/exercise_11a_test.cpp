// exercise_11a_test: EXERCISE 11a, attention through a block table
// (lessons/11_server/exercise/paged_attention.cpp).
//
//   ctest --preset yours -L '^yours_11a$'    your code
//   ctest --preset release -L exercise_11a    the reference solution
//
// The same positions go through lesson 06's contiguous step (exercise 06a's
// reference: row p of the cache for position p) and through yours, whose rows
// are scattered over a pool by a block table. Every output row must be the SAME
// BITS, and every key and value must sit in the row the table gives it.

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "06_kvcache/exercise/attention_with_cache.hpp"
#include "11_server/exercise/paged_attention.hpp"
#include "number_text.hpp"
#include "rng.hpp"

namespace {

using tang::BlockId;
using tang::paged_attention_with_cache;
using tang::testing::exact;

constexpr std::size_t N = 40, C = 16, NH = 4;  // positions, width, heads of 4
constexpr std::size_t kPoolBlocks = 20;

struct Positions {
  std::vector<float> qkv;   // (N, 3C)
  std::vector<float> full;  // (N, C) lesson 06's step, position by position
};

Positions lesson_six(std::uint64_t seed) {
  Positions r;
  tang::Rng rng(seed);
  r.qkv.resize(N * 3 * C);
  for (float& x : r.qkv) x = rng.normal();
  std::vector<float> k(N * C), v(N * C);
  r.full.resize(N * C);
  for (std::size_t t = 0; t < N; ++t) {
    tang::reference::attention_with_cache(r.full.data() + t * C, r.qkv.data() + t * 3 * C, k.data(),
                                          v.data(), t, 1, C, NH);
  }
  return r;
}

// The pool row of position p.
std::size_t row_of(const std::vector<BlockId>& table, std::size_t block_size, std::size_t p) {
  return table[p / block_size] * block_size + p % block_size;
}

void expect_paged_equals_contiguous(std::size_t block_size, const std::vector<BlockId>& table,
                                    const std::vector<std::size_t>& steps, const std::string& how) {
  const Positions r = lesson_six(block_size * 7 + steps.size());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> k_pool(kPoolBlocks * block_size * C, nan), v_pool(k_pool), out(N * C, nan);
  std::size_t start = 0;
  for (std::size_t T : steps) {
    paged_attention_with_cache(out.data() + start * C, r.qkv.data() + start * 3 * C, k_pool.data(),
                               v_pool.data(), table, block_size, start, T, C, NH);
    for (std::size_t t = start; t < start + T; ++t) {
      for (std::size_t i = 0; i < C; ++i) {
        ASSERT_EQ(std::memcmp(&out[t * C + i], &r.full[t * C + i], sizeof(float)), 0)
            << how << ": position " << t << " (step start " << start << ", T " << T << "), column "
            << i << " is " << exact(out[t * C + i]) << ", lesson 06's cache gives "
            << exact(r.full[t * C + i])
            << ". Call ops::attend_rows with the pool rows of positions 0 .. start+t, in order";
      }
    }
    start += T;
  }
  for (std::size_t p = 0; p < N; ++p) {
    const std::size_t row = row_of(table, block_size, p);
    for (std::size_t i = 0; i < C; ++i) {
      ASSERT_EQ(k_pool[row * C + i], r.qkv[p * 3 * C + C + i])
          << how << ": the key of position " << p << " belongs in pool row table[p / block_size] * "
          << "block_size + p % block_size = " << row;
      ASSERT_EQ(v_pool[row * C + i], r.qkv[p * 3 * C + 2 * C + i])
          << how << ": the value of position " << p << " belongs in pool row " << row;
    }
  }
}

TEST(Exercise11a, BlocksInOrderOneAtATime) {
  expect_paged_equals_contiguous(4, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<std::size_t>(N, 1),
                                 "blocks 0 .. 9 of 4 positions, one position at a time");
}

TEST(Exercise11a, ScatteredBlocksPrefillThenSteps) {
  expect_paged_equals_contiguous(
      4, {17, 3, 12, 0, 9, 19, 5, 14, 1, 8}, {13, 1, 1, 9, 16},
      "blocks scattered over the pool, a prefill of 13, then 1, 1, 9, 16");
}

TEST(Exercise11a, BlocksOfSixteen) {
  expect_paged_equals_contiguous(16, {2, 0, 1}, {20, 1, 19}, "blocks of 16, a prefill of 20");
}

TEST(Exercise11a, BlocksOfOnePosition) {
  std::vector<BlockId> table;
  for (std::size_t i = 0; i < N; ++i) table.push_back(static_cast<BlockId>((i * 7) % N));
  const Positions r = lesson_six(3);
  std::vector<float> k_pool(N * C), v_pool(N * C), out(N * C);
  paged_attention_with_cache(out.data(), r.qkv.data(), k_pool.data(), v_pool.data(), table, 1, 0, N,
                             C, NH);
  for (std::size_t i = 0; i < N * C; ++i) {
    ASSERT_EQ(std::memcmp(&out[i], &r.full[i], sizeof(float)), 0)
        << "blocks of one position: position " << i / C << " is " << exact(out[i])
        << ", lesson 06's cache gives " << exact(r.full[i]);
  }
}

// The table is the text's first blocks inside a longer list (the engine's table has
// room for the whole poem), and the pool's rows hold older texts' keys and values:
// the rows of the last block past start + t, and the blocks past the table's end,
// are finite and plausible, so attending over any of them moves the output.
TEST(Exercise11a, ReadsNothingPastTheTextsPositions) {
  const Positions r = lesson_six(47);
  tang::Rng rng(48);
  std::vector<float> k_pool(kPoolBlocks * 4 * C), v_pool(kPoolBlocks * 4 * C);
  for (float& x : k_pool) x = rng.normal();  // older texts' keys and values
  for (float& x : v_pool) x = rng.normal();
  const std::vector<BlockId> blocks = {6, 2, 11, 4, 0};
  const std::span<const BlockId> table = std::span(blocks).first(3);  // positions 0 .. 11
  const float sentinel = 12345.0f;
  std::vector<float> out(N * C, sentinel);
  std::size_t start = 0;
  for (const std::size_t T : {6, 4}) {
    paged_attention_with_cache(out.data() + start * C, r.qkv.data() + start * 3 * C, k_pool.data(),
                               v_pool.data(), table, 4, start, T, C, NH);
    start += T;
  }
  for (std::size_t i = 0; i < 10 * C; ++i) {
    ASSERT_EQ(std::memcmp(&out[i], &r.full[i], sizeof(float)), 0)
        << "positions 0 .. 9 in blocks 6, 2, 11 of a pool older texts filled: position " << i / C
        << ", column " << i % C << " is " << exact(out[i]) << ", lesson 06's cache gives "
        << exact(r.full[i])
        << ". Block 11's rows past position 9, and blocks 4 and 0 (past the table's span, in the "
           "buffer it lies in), hold other texts' keys: attend over positions 0 .. start+t only, "
           "never whole blocks or the whole table";
  }
  for (std::size_t i = 10 * C; i < N * C; ++i) {
    ASSERT_EQ(out[i], sentinel) << "out has T rows: row " << i / C << " is not yours";
  }
}

TEST(Exercise11a, OtherBlocksOfThePoolAreNotTouched) {
  const Positions r = lesson_six(5);
  const float sentinel = 12345.0f;
  const std::vector<BlockId> table = {6, 2, 11};  // positions 0 .. 9 of blocks of 4
  std::vector<float> k_pool(kPoolBlocks * 4 * C, sentinel), v_pool(k_pool), out(N * C, sentinel);
  paged_attention_with_cache(out.data(), r.qkv.data(), k_pool.data(), v_pool.data(), table, 4, 0,
                             10, C, NH);
  for (std::size_t row = 0; row < kPoolBlocks * 4; ++row) {
    const std::size_t block = row / 4, at = row % 4;
    const bool written = (block == 6 || block == 2) || (block == 11 && at < 2);
    for (std::size_t i = 0; i < C && !written; ++i) {
      ASSERT_EQ(k_pool[row * C + i], sentinel)
          << "pool row " << row << " (block " << block << ") holds none of positions 0 .. 9";
      ASSERT_EQ(v_pool[row * C + i], sentinel)
          << "pool row " << row << " (block " << block << ") holds none of positions 0 .. 9";
    }
  }
  for (std::size_t i = 10 * C; i < N * C; ++i)
    ASSERT_EQ(out[i], sentinel) << "out has T rows: row " << i / C << " is not yours";
}

}  // namespace
