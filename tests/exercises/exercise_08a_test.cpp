// exercise_08a_test: EXERCISE 08a, int8 rows in blocks of 32
// (lessons/08_many_poems/exercise/quantize_row.cpp).
//
//   ctest --preset yours -L '^yours_08a$'     your code
//   ctest --preset release -L exercise_08a     the reference solution
//
// Hand-made blocks first, whose scales are powers of two so that every
// division is exact and each answer is known (each rule of the comment on its
// own: the scale, rounding halves away from zero, zero blocks, signs,
// clamping, sizes), then random rows against the bounds the comment promises.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "08_many_poems/exercise/quantize_row.hpp"

namespace {

using tang::dequantize_row;
using tang::kQuantBlock;
using tang::quantize_row;

using Quants = std::vector<std::int8_t>;

struct Quantized {
  Quants quants;
  std::vector<float> scales;
};

// Quantizes x into buffers filled with garbage first: every value must be written.
Quantized quantized(const std::vector<float>& x) {
  Quantized q{Quants(x.size(), 99), std::vector<float>(x.size() / kQuantBlock, -1.0f)};
  quantize_row(x.data(), x.size(), q.quants.data(), q.scales.data());
  return q;
}

// One block: `head` first, the rest zeros.
std::vector<float> block(std::vector<float> head) {
  head.resize(kQuantBlock, 0.0f);
  return head;
}

// As numbers: gtest would print an int8 as a character ('\x81' (-127)).
std::vector<int> ints(const Quants& q) {
  return {q.begin(), q.end()};
}

Quants quants_of(std::vector<int> head) {
  head.resize(kQuantBlock, 0);
  return Quants(head.begin(), head.end());
}

TEST(Exercise08a, ABlockWhoseLargestIs127HasScaleOne) {
  const Quantized q = quantized(block({127, -3, 2.5f, -2.5f, 0.5f, -0.5f, 0.25f, 1.5f, 126.5f}));
  ASSERT_EQ(q.scales, std::vector<float>{1.0f});
  // halves round away from zero: 2.5 -> 3 and -2.5 -> -3 (not to even), 0.5 -> 1
  EXPECT_EQ(ints(q.quants), ints(quants_of({127, -3, 3, -3, 1, -1, 0, 2, 127})));
}

TEST(Exercise08a, TheScaleIsTheLargestMagnitudeOver127) {
  const Quantized two = quantized(block({254, 5, -3, 1, 0.75f}));
  ASSERT_EQ(two.scales, std::vector<float>{2.0f});
  EXPECT_EQ(ints(two.quants), ints(quants_of({127, 3, -2, 1, 0})));  // 2.5 -> 3, -1.5 -> -2, 0.5 -> 1
  // the largest magnitude may be negative
  const Quantized half = quantized(block({10.25f, -63.5f, 0.2f}));
  ASSERT_EQ(half.scales, std::vector<float>{0.5f});
  EXPECT_EQ(ints(half.quants), ints(quants_of({21, -127, 0})));  // 20.5 -> 21
}

TEST(Exercise08a, EachBlockHasItsOwnScale) {
  std::vector<float> row = block({127, 64, -1});
  const std::vector<float> zeros = block({});
  const std::vector<float> twos = block({-254, 7, 3});
  row.insert(row.end(), zeros.begin(), zeros.end());
  row.insert(row.end(), twos.begin(), twos.end());
  const Quantized q = quantized(row);
  EXPECT_EQ(q.scales, (std::vector<float>{1.0f, 0.0f, 2.0f}));
  Quants expected = quants_of({127, 64, -1});
  const Quants second = quants_of({}), third = quants_of({-127, 4, 2});  // 3.5 -> 4, 1.5 -> 2
  expected.insert(expected.end(), second.begin(), second.end());
  expected.insert(expected.end(), third.begin(), third.end());
  EXPECT_EQ(ints(q.quants), ints(expected));
}

TEST(Exercise08a, AZeroBlockHasScaleZeroAndZeroQuants) {
  const Quantized q = quantized(block({0.0f, -0.0f, 0.0f, -0.0f}));
  EXPECT_EQ(q.scales, std::vector<float>{0.0f});
  EXPECT_EQ(ints(q.quants), ints(quants_of({})));
  std::vector<float> back(kQuantBlock, 7.0f);
  dequantize_row(q.quants.data(), q.scales.data(), kQuantBlock, back.data());
  EXPECT_EQ(back, std::vector<float>(kQuantBlock, 0.0f));
}

TEST(Exercise08a, TheLargestBecomesPlusOrMinus127AndSignsAreKept) {
  std::mt19937 gen(8);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> x(kQuantBlock);
    for (float& v : x) v = normal(gen);
    const auto largest = std::max_element(
        x.begin(), x.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
    if (trial % 2 == 1) *largest = -std::abs(*largest);  // half the time the largest is negative
    const Quantized q = quantized(x);
    const std::size_t at = static_cast<std::size_t>(largest - x.begin());
    ASSERT_EQ(int{q.quants[at]}, *largest > 0 ? 127 : -127) << "trial " << trial;
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_GE(int{q.quants[i]}, -127)
          << "trial " << trial << ", value " << i << ": -128 is never used";
      if (q.quants[i] != 0) {
        ASSERT_EQ(q.quants[i] > 0, x[i] > 0) << "trial " << trial << ", value " << i;
      }
    }
  }
}

TEST(Exercise08a, QuantsAreClampedTo127) {
  // Where max / 127 is a subnormal float it keeps few digits: here it rounds
  // down to the smallest float d, and 190 d / d = 190 must be clamped.
  const float d = std::numeric_limits<float>::denorm_min();
  const Quantized q = quantized(block({190 * d, -190 * d, 100 * d, -d}));
  ASSERT_EQ(q.scales, std::vector<float>{d});
  EXPECT_EQ(ints(q.quants), ints(quants_of({127, -127, 100, -1})));
}

TEST(Exercise08a, RowsThatAreNotWholeBlocksThrow) {
  std::vector<float> x(100, 1.0f);
  Quants quants(100);
  std::vector<float> scales(4);
  for (std::size_t n : {1, 31, 33, 48, 100}) {
    EXPECT_THROW(quantize_row(x.data(), n, quants.data(), scales.data()), std::invalid_argument)
        << "n = " << n;
    EXPECT_THROW(dequantize_row(quants.data(), scales.data(), n, x.data()), std::invalid_argument)
        << "n = " << n;
  }
  // no block at all is a whole number of blocks
  EXPECT_NO_THROW(quantize_row(x.data(), 0, quants.data(), scales.data()));
  EXPECT_NO_THROW(dequantize_row(quants.data(), scales.data(), 0, x.data()));
}

TEST(Exercise08a, DequantizeMultipliesEachQuantByItsBlockScale) {
  Quants quants = quants_of({127, -1, 0, 5});
  const Quants second = quants_of({-127, 3});
  quants.insert(quants.end(), second.begin(), second.end());
  const std::vector<float> scales = {0.5f, 0.1f};
  std::vector<float> x(2 * kQuantBlock, 7.0f);
  dequantize_row(quants.data(), scales.data(), x.size(), x.data());
  std::vector<float> expected(2 * kQuantBlock, 0.0f);
  expected[0] = 63.5f, expected[1] = -0.5f, expected[3] = 2.5f;
  expected[kQuantBlock] = -127.0f * 0.1f, expected[kQuantBlock + 1] = 3.0f * 0.1f;
  EXPECT_EQ(x, expected);
}

// A row is one of a matrix's rows (StoredMatrix quantizes them one by one): x, quants
// and scales point into larger buffers, and the next row, whose values are 1000, starts
// right after x's end. Nothing past the row's n values and n / 32 scales is read or written.
TEST(Exercise08a, ARowInsideAMatrixReadsAndWritesOnlyItsOwnValues) {
  const std::size_t n = 2 * kQuantBlock;
  std::vector<float> matrix(3 * n, 1000.0f);  // rows 0 and 2 are 1000s; row 1 is the row
  const std::vector<float> first = block({127, 64, -1}), second = block({-254, 7, 3});
  std::copy(first.begin(), first.end(), matrix.begin() + n);
  std::copy(second.begin(), second.end(), matrix.begin() + n + kQuantBlock);
  Quants quants(3 * n, 99);
  std::vector<float> scales(6, -1.0f);
  quantize_row(matrix.data() + n, n, quants.data() + n, scales.data() + 2);

  EXPECT_EQ(std::vector<float>(scales.begin() + 2, scales.begin() + 4),
            (std::vector<float>{1.0f, 2.0f}))
      << "the row's blocks have largest magnitudes 127 and 254: scales 1 and 2. The row ends "
         "after its 64 values, but the matrix goes on with the next row's 1000s: take each "
         "block's largest over its own 32 values, never past x + n";
  Quants expected = quants_of({127, 64, -1});
  const Quants tail = quants_of({-127, 4, 2});
  expected.insert(expected.end(), tail.begin(), tail.end());
  EXPECT_EQ(ints(Quants(quants.begin() + n, quants.begin() + 2 * n)), ints(expected));
  for (std::size_t i = 2 * n; i < 3 * n; ++i) {
    ASSERT_EQ(int{quants[i]}, 99) << "quants[" << i - n << "] is past the row's n = " << n
                                  << " quants: not yours to write";
  }
  EXPECT_EQ(scales[4], -1.0f) << "scales[n / 32] is past the row's 2 scales: not yours to write";
  EXPECT_EQ(scales[1], -1.0f) << "scales[-1] is before the row's scales: not yours to write";

  // dequantize_row the same way: the next row's quants (127) and scale (100) follow
  std::fill(quants.begin() + 2 * n, quants.end(), std::int8_t{127});
  scales[4] = 100.0f;
  std::vector<float> back(3 * n, 7.0f);
  dequantize_row(quants.data() + n, scales.data() + 2, n, back.data() + n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(back[n + i], static_cast<float>(expected[i]) * (i < kQuantBlock ? 1.0f : 2.0f))
        << "dequantize_row: value " << i << " is its quant times its block's scale";
  }
  for (std::size_t i = 2 * n; i < 3 * n; ++i) {
    ASSERT_EQ(back[i], 7.0f) << "dequantize_row wrote x[" << i - n << "], past the row's n = " << n
                             << " values (reading the next row's quants and scale)";
  }
}

TEST(Exercise08a, RandomRowsComeBackWithinHalfAStep) {
  std::mt19937 gen(32);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> blocks(1, 16), exponent(-12, 12);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = kQuantBlock * static_cast<std::size_t>(blocks(gen));
    std::vector<float> x(n);
    const float magnitude = std::ldexp(1.0f, exponent(gen));
    for (float& v : x) v = magnitude * normal(gen);
    if (trial % 3 == 0) x[gen() % n] *= 100.0f;  // an outlier: its block's small values suffer
    const Quantized q = quantized(x);
    std::vector<float> back(n);
    dequantize_row(q.quants.data(), q.scales.data(), n, back.data());
    for (std::size_t b = 0; b < n / kQuantBlock; ++b) {
      float max = 0.0f;
      for (std::size_t i = b * kQuantBlock; i < (b + 1) * kQuantBlock; ++i)
        max = std::max(max, std::abs(x[i]));
      ASSERT_EQ(q.scales[b], max / 127.0f) << "trial " << trial << ", block " << b;
      // half a step, plus the rounding of x / scale and of q * scale (254 units
      // of 2^-24 of the scale, at most)
      const double bound = q.scales[b] * (0.5 + 254.0 * std::ldexp(1.0, -24));
      for (std::size_t i = b * kQuantBlock; i < (b + 1) * kQuantBlock; ++i) {
        ASSERT_EQ(back[i], static_cast<float>(q.quants[i]) * q.scales[b]);
        ASSERT_LE(std::abs(static_cast<double>(x[i]) - back[i]), bound)
            << "trial " << trial << ", value " << i << " = " << x[i] << ", scale " << q.scales[b];
      }
    }
  }
}

}  // namespace
