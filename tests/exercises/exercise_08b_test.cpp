// exercise_08b_test: EXERCISE 08b, a row of float32 rounded to bfloat16
// (lessons/08_many_poems/exercise/bf16_row.cpp).
//
//   ctest --preset yours -L '^yours_08b$'    your code
//   ctest --preset release -L exercise_08b    the reference solution
//
// Hand-picked bit patterns first, one rule of the comment each (values a
// bfloat16 holds exactly, rounding down and up, ties to even, the carry into
// the exponent, infinity, NaN, signs), each answer written out; then random
// rows against the bound the comment promises. Failures print the bits in hex.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "08_many_poems/exercise/bf16_row.hpp"

namespace {

using tang::round_to_bf16;

std::string hex(std::uint32_t bits, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*X", digits, bits);
  return text;
}

// The bf16 of the float whose bits are `bits`, rounded alone, as hex.
std::string rounded(std::uint32_t bits) {
  const float x = std::bit_cast<float>(bits);
  std::uint16_t out = 0xBEEF;
  round_to_bf16(&x, 1, &out);
  return hex(out, 4);
}

// Each pair: the float32 bits in, the bf16 bits that must come out.
void expect_all(const std::vector<std::pair<std::uint32_t, std::uint16_t>>& cases,
                const std::string& rule) {
  for (const auto& [in, out] : cases) {
    EXPECT_EQ(rounded(in), hex(out, 4))
        << rule << ": float32 " << hex(in, 8) << " (" << std::bit_cast<float>(in) << ")";
  }
}

TEST(Exercise08b, ValuesABf16HoldsExactlyKeepTheirTopHalf) {
  expect_all({{0x3F800000, 0x3F80},   // 1
              {0xC0000000, 0xC000},   // -2
              {0x3E200000, 0x3E20},   // 0.15625
              {0x00000000, 0x0000},   // 0
              {0x80000000, 0x8000},   // -0 keeps its sign
              {0x00010000, 0x0001}},  // a subnormal
             "nothing is dropped, so nothing rounds");
}

TEST(Exercise08b, BelowHalfwayRoundsDownAboveRoundsUp) {
  expect_all({{0x3F807FFF, 0x3F80}, {0x3F800001, 0x3F80}, {0xBF807FFF, 0xBF80}},
             "the dropped half is below 0x8000: down (toward zero)");
  expect_all({{0x3F808001, 0x3F81}, {0x3F80FFFF, 0x3F81}, {0xBF808001, 0xBF81}},
             "the dropped half is above 0x8000: up (away from zero)");
}

TEST(Exercise08b, ExactlyHalfwayRoundsToEven) {
  expect_all({{0x3F808000, 0x3F80},   // 0x3F80 is even: stays
              {0x3F818000, 0x3F82},   // 0x3F81 is odd: up to 0x3F82
              {0xBF818000, 0xBF82},   // the same for a negative number
              {0x40C78000, 0x40C8}},  // 6.234375, halfway between 6.21875 and 6.25
             "a tie goes to the even top half");
}

TEST(Exercise08b, RoundingUpMayCarryIntoTheExponent) {
  expect_all({{0x3FFFFFFF, 0x4000},   // 1.99999988 -> 2
              {0x3F7FFFFF, 0x3F80},   // 0.99999994 -> 1
              {0x7F7FFFFF, 0x7F80}},  // the largest float -> infinity
             "the carry is the right answer");
}

TEST(Exercise08b, InfinityStaysInfinityAndNaNStaysNaN) {
  expect_all({{0x7F800000, 0x7F80}, {0xFF800000, 0xFF80}}, "infinity rounds to itself");
  expect_all({{0x7FC00000, 0x7FC0},   // the usual NaN
              {0x7F800001, 0x7FC0},   // a NaN whose mantissa bits are all in the dropped half
              {0x7FFFFFFF, 0x7FFF},   // would carry past the sign into 0x8000 if rounded
              {0xFF80FFFF, 0xFFC0}},  // a negative NaN
             "a NaN is its top half with bit 0x0040 set, never rounded");
}

TEST(Exercise08b, EveryValueOfTheRowIsWrittenAndNothingElse) {
  const std::vector<float> x = {1.0f, -2.5f, 3.0e-3f, 7.0f};
  std::vector<std::uint16_t> out(6, 0xBEEF);
  round_to_bf16(x.data(), x.size(), out.data());
  EXPECT_EQ(hex(out[0], 4), "0x3F80");
  EXPECT_EQ(hex(out[1], 4), "0xC020");
  EXPECT_EQ(hex(out[3], 4), "0x40E0");
  EXPECT_EQ(hex(out[4], 4), "0xBEEF") << "out[n] and beyond are not yours to write";
  EXPECT_EQ(hex(out[5], 4), "0xBEEF");
  round_to_bf16(x.data(), 0, out.data());  // an empty row writes nothing
  EXPECT_EQ(hex(out[0], 4), "0x3F80");
}

// A row of 5 in the middle of a matrix (StoredMatrix rounds it row by row): x and out
// point into larger buffers. 5 is no multiple of 2, 4 or 8, so a loop that rounds the
// tail as a whole group reads the next row's values and writes them past out + n.
TEST(Exercise08b, ARowInsideAMatrixWritesOnlyItsOwnValues) {
  const std::vector<float> matrix = {9.0f, 9.0f, 9.0f, 1.0f, -2.5f, 3.0e-3f,
                                     7.0f, 0.5f, 9.0f, 9.0f, 9.0f,  9.0f};
  std::vector<std::uint16_t> out(12, 0xBEEF);
  round_to_bf16(matrix.data() + 3, 5, out.data() + 2);
  const char* expected[] = {"0x3F80", "0xC020", "0x3B45", "0x40E0", "0x3F00"};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(hex(out[2 + i], 4), expected[i])
        << "value " << i << " of the row: float32 " << matrix[3 + i];
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i >= 2 && i < 7) continue;
    EXPECT_EQ(hex(out[i], 4), "0xBEEF")
        << "out[" << static_cast<long>(i) - 2 << "] is outside the row's n = 5 values: not yours "
        << "to write (the row ends after 5; the matrix goes on with the next row's 9s)";
  }
}

TEST(Exercise08b, RandomRowsComeBackWithinHalfAStepOfTheirOwnMantissa) {
  std::mt19937 gen(16);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-100, 100);
  std::vector<float> x(1000);
  std::vector<std::uint16_t> out(x.size());
  for (int trial = 0; trial < 20; ++trial) {
    for (float& v : x) v = std::ldexp(normal(gen), exponent(gen));
    round_to_bf16(x.data(), x.size(), out.data());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float back = std::bit_cast<float>(std::uint32_t{out[i]} << 16);
      // half a step of a 7-bit mantissa: at most 2^-8 of the value
      ASSERT_LE(std::abs(static_cast<double>(x[i]) - back), std::abs(x[i]) / 256.0)
          << "value " << i << ": float32 " << hex(std::bit_cast<std::uint32_t>(x[i]), 8)
          << " came back as " << back << " (bf16 " << hex(out[i], 4) << ")";
      ASSERT_EQ(std::signbit(back), std::signbit(x[i])) << "value " << i << ": the sign changed";
    }
  }
}

}  // namespace
