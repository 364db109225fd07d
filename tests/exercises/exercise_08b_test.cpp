// exercise_08b_test: EXERCISE 08b, one attention step for many sequences
// (lessons/08_many_poems/exercise/batched_attention.cpp).
//
//   ctest --preset yours -L '^yours_08b$'    your code
//   ctest --preset release -L exercise_08b    the reference solution
//
// B random sequences at different lengths: each one's caches hold the keys and
// values of its earlier positions, the step gets its new position, and the
// output row must be the SAME BITS as full causal attention over that whole
// sequence at once (ops::attention_forward): both call ops::attend over the
// same keys and values in the same order. The new key and value must land in
// row lengths[b] of the sequence's own caches, and nothing else may change.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "08_many_poems/exercise/batched_attention.hpp"
#include "number_text.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace {

using tang::batched_attention;

constexpr std::size_t C = 16, NH = 4, T_MAX = 32;

struct Batch {
  std::vector<std::size_t> lengths;  // (B) positions cached before the step
  std::vector<std::vector<float>>
      sequence;                          // (B) each (lengths[b] + 1, 3C): q | k | v per position
  std::vector<std::vector<float>> k, v;  // (B) each cache (T_MAX, C)
  std::vector<float> qkv;                // (B, 3C) the new rows
  std::vector<float> expected;           // (B, C) full attention's last row
};

// Caches filled with rows 0 .. length-1; past them a marker that must stay.
constexpr float kUntouched = -12345.0f;

Batch random_batch(const std::vector<std::size_t>& lengths, std::uint64_t seed) {
  tang::Rng rng(seed);
  Batch b;
  b.lengths = lengths;
  const std::size_t B = lengths.size();
  b.qkv.resize(B * 3 * C);
  b.expected.resize(B * C);
  for (std::size_t s = 0; s < B; ++s) {
    const std::size_t n = lengths[s] + 1;
    std::vector<float> seq(n * 3 * C);
    for (float& x : seq) x = rng.normal();
    std::vector<float> k(T_MAX * C, kUntouched), v(T_MAX * C, kUntouched);
    for (std::size_t t = 0; t < lengths[s]; ++t) {
      std::memcpy(&k[t * C], &seq[t * 3 * C + C], C * sizeof(float));
      std::memcpy(&v[t * C], &seq[t * 3 * C + 2 * C], C * sizeof(float));
    }
    std::memcpy(&b.qkv[s * 3 * C], &seq[lengths[s] * 3 * C], 3 * C * sizeof(float));
    std::vector<float> out(n * C), att(NH * n * n);
    tang::ops::attention_forward(out.data(), att.data(), seq.data(), 1, n, C, NH);
    std::memcpy(&b.expected[s * C], &out[lengths[s] * C], C * sizeof(float));
    b.sequence.push_back(seq);
    b.k.push_back(k);
    b.v.push_back(v);
  }
  return b;
}

void run(Batch& b, std::vector<float>& out) {
  std::vector<float*> k, v;
  for (std::size_t s = 0; s < b.lengths.size(); ++s)
    k.push_back(b.k[s].data()), v.push_back(b.v[s].data());
  out.assign(b.lengths.size() * C, 0.0f);
  batched_attention(out.data(), b.qkv.data(), k.data(), v.data(), b.lengths.data(),
                    b.lengths.size(), C, NH);
}

TEST(Exercise08b, EachRowIsFullAttentionOverItsOwnSequenceBitForBit) {
  Batch b = random_batch({0, 5, 1, 17, 30, 5}, 1);
  std::vector<float> out;
  run(b, out);
  for (std::size_t s = 0; s < b.lengths.size(); ++s) {
    for (std::size_t i = 0; i < C; ++i) {
      ASSERT_EQ(std::memcmp(&out[s * C + i], &b.expected[s * C + i], sizeof(float)), 0)
          << "sequence " << s << " (length " << b.lengths[s] << "), channel " << i << ": got "
          << tang::testing::exact(out[s * C + i]) << ", full attention gives "
          << tang::testing::exact(b.expected[s * C + i]);
    }
  }
}

TEST(Exercise08b, TheNewKeyAndValueGoToRowLengthOfTheirOwnCache) {
  Batch b = random_batch({3, 0, 9}, 2);
  std::vector<float> out;
  run(b, out);
  for (std::size_t s = 0; s < b.lengths.size(); ++s) {
    const std::size_t L = b.lengths[s];
    for (std::size_t i = 0; i < C; ++i) {
      EXPECT_EQ(b.k[s][L * C + i], b.sequence[s][L * 3 * C + C + i]) << "key, sequence " << s;
      EXPECT_EQ(b.v[s][L * C + i], b.sequence[s][L * 3 * C + 2 * C + i]) << "value, sequence " << s;
    }
    for (std::size_t t = 0; t < L; ++t) {  // the rows before it are unchanged
      for (std::size_t i = 0; i < C; ++i) {
        EXPECT_EQ(b.k[s][t * C + i], b.sequence[s][t * 3 * C + C + i]);
        EXPECT_EQ(b.v[s][t * C + i], b.sequence[s][t * 3 * C + 2 * C + i]);
      }
    }
    for (std::size_t t = L + 1; t < T_MAX; ++t) {  // and nothing past it is written
      for (std::size_t i = 0; i < C; ++i) {
        ASSERT_EQ(b.k[s][t * C + i], kUntouched) << "sequence " << s << " key row " << t;
        ASSERT_EQ(b.v[s][t * C + i], kUntouched) << "sequence " << s << " value row " << t;
      }
    }
  }
}

TEST(Exercise08b, ABatchOfOneIsTheSingleSequenceStep) {
  for (std::size_t length : {0u, 1u, 7u, 31u}) {
    Batch b = random_batch({length}, 3 + length);
    std::vector<float> out;
    run(b, out);
    EXPECT_EQ(std::memcmp(out.data(), b.expected.data(), C * sizeof(float)), 0)
        << "length " << length;
  }
}

TEST(Exercise08b, TheOrderOfTheSequencesDoesNotMatter) {
  Batch b = random_batch({4, 12, 0, 8}, 5);
  Batch reversed = random_batch({8, 0, 12, 4}, 5);  // other numbers: rebuild from b's reversed
  reversed.lengths = {b.lengths.rbegin(), b.lengths.rend()};
  reversed.sequence = {b.sequence.rbegin(), b.sequence.rend()};
  reversed.k = {b.k.rbegin(), b.k.rend()};
  reversed.v = {b.v.rbegin(), b.v.rend()};
  for (std::size_t s = 0; s < 4; ++s)
    std::memcpy(&reversed.qkv[s * 3 * C], &b.qkv[(3 - s) * 3 * C], 3 * C * sizeof(float));
  std::vector<float> out, out_reversed;
  run(b, out);
  run(reversed, out_reversed);
  for (std::size_t s = 0; s < 4; ++s) {
    EXPECT_EQ(std::memcmp(&out[s * C], &out_reversed[(3 - s) * C], C * sizeof(float)), 0) << s;
  }
}

}  // namespace
