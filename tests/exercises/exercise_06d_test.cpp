// exercise_06d_test: EXERCISE 06d, what one forward step reads and multiplies
// (lessons/06_kvcache/exercise/step_traffic.cpp).
//
//   ctest --preset yours -L '^yours_06d$'    your code
//   ctest --preset release -L exercise_06d    the reference solution
//
// Counts, not timings: shapes worked out on paper, the two models the course
// times (ours and GPT-2 small's shape), and what the counts must mean for the
// roofline (flops per byte grow with the rows that share one read).

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "06_kvcache/exercise/step_traffic.hpp"

namespace {

using tang::GPTConfig;
using tang::kv_bytes_read;
using tang::MatrixTraffic;
using tang::step_matrices;

GPTConfig config(std::size_t vocab, std::size_t layers, std::size_t heads, std::size_t dims) {
  GPTConfig c;
  c.vocab_size = vocab, c.n_layer = layers, c.n_head = heads, c.n_embd = dims;
  return c;
}

double total(const std::vector<MatrixTraffic>& matrices, double MatrixTraffic::*field) {
  double sum = 0.0;
  for (const MatrixTraffic& m : matrices) sum += m.*field;
  return sum;
}

TEST(Exercise06d, FiveKindsOfMatrixInTheModelsOrder) {
  // C = 2, one layer, 3 characters: small enough to check on paper
  const std::vector<MatrixTraffic> m = step_matrices(config(3, 1, 1, 2), 5, 1, 4.0);
  ASSERT_EQ(m.size(), 5u) << "qkv, attn_proj, fc, fc_proj, output";
  const char* names[] = {"qkv", "attn_proj", "fc", "fc_proj", "output"};
  const std::size_t rows[] = {6, 2, 8, 2, 3}, cols[] = {2, 2, 2, 8, 2};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(m[i].name, names[i]) << "matrix " << i;
    EXPECT_EQ(m[i].rows, rows[i]) << names[i] << ": rows of W (3C, C, 4C, C, V)";
    EXPECT_EQ(m[i].cols, cols[i]) << names[i] << ": columns of W (C, C, C, 4C, C)";
  }
}

TEST(Exercise06d, BytesAreEveryWeightOnceAndFlopsTwicePerWeightPerInput) {
  // C = 2, 3 layers, 3 characters; 5 rows through the blocks, 1 through the output layer
  const std::vector<MatrixTraffic> m = step_matrices(config(3, 3, 1, 2), 5, 1, 4.0);
  ASSERT_EQ(m.size(), 5u);
  const double weights[] = {3 * 6 * 2, 3 * 2 * 2, 3 * 8 * 2, 3 * 2 * 8, 3 * 2};
  const std::size_t counts[] = {3, 3, 3, 3, 1}, inputs[] = {5, 5, 5, 5, 1};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(m[i].count, counts[i]) << m[i].name << ": one per layer, the output layer once";
    EXPECT_EQ(m[i].inputs, inputs[i]) << m[i].name
                                      << ": rows through the blocks, output_rows "
                                         "through the output layer";
    EXPECT_DOUBLE_EQ(m[i].bytes, 4.0 * weights[i])
        << m[i].name << ": every weight of every layer read once, 4 bytes each";
    EXPECT_DOUBLE_EQ(m[i].flops, 2.0 * weights[i] * static_cast<double>(inputs[i]))
        << m[i].name << ": a multiply and an add per weight per input row";
  }
}

TEST(Exercise06d, BytesDoNotGrowWithTheRowsButFlopsDo) {
  const GPTConfig c = config(50, 2, 2, 16);
  const std::vector<MatrixTraffic> one = step_matrices(c, 1, 1, 4.0);
  const std::vector<MatrixTraffic> many = step_matrices(c, 16, 16, 4.0);
  EXPECT_DOUBLE_EQ(total(many, &MatrixTraffic::bytes), total(one, &MatrixTraffic::bytes))
      << "16 rows share one read of the weights";
  EXPECT_DOUBLE_EQ(total(many, &MatrixTraffic::flops), 16.0 * total(one, &MatrixTraffic::flops))
      << "each row is multiplied on its own";
  // the roofline's x axis: flops per byte, 0.5 x rows for fp32
  EXPECT_DOUBLE_EQ(total(one, &MatrixTraffic::flops) / total(one, &MatrixTraffic::bytes), 0.5);
  EXPECT_DOUBLE_EQ(total(many, &MatrixTraffic::flops) / total(many, &MatrixTraffic::bytes), 8.0);
}

TEST(Exercise06d, TheFormatSetsTheBytesNotTheFlops) {
  const GPTConfig c = config(50, 2, 2, 16);
  const std::vector<MatrixTraffic> fp32 = step_matrices(c, 4, 4, 4.0);
  const std::vector<MatrixTraffic> bf16 = step_matrices(c, 4, 4, 2.0);
  const std::vector<MatrixTraffic> int8 = step_matrices(c, 4, 4, 1.125);  // + a scale per 32
  EXPECT_DOUBLE_EQ(total(bf16, &MatrixTraffic::bytes), total(fp32, &MatrixTraffic::bytes) / 2);
  EXPECT_DOUBLE_EQ(total(int8, &MatrixTraffic::bytes),
                   total(fp32, &MatrixTraffic::bytes) * 1.125 / 4.0);
  EXPECT_DOUBLE_EQ(total(int8, &MatrixTraffic::flops), total(fp32, &MatrixTraffic::flops))
      << "smaller weights are still one multiply-add each";
}

TEST(Exercise06d, OurModelReads6Point8MegabytesAStep) {
  // 4 layers, 128 dims, 7,129 characters: 4 x 12 x 128^2 + 7,129 x 128 weights
  const std::vector<MatrixTraffic> m = step_matrices(config(7129, 4, 4, 128), 1, 1, 4.0);
  EXPECT_DOUBLE_EQ(total(m, &MatrixTraffic::bytes), 4.0 * 1'698'944)
      << "the course's model: 1,698,944 matrix weights, in fp32";
  EXPECT_DOUBLE_EQ(total(m, &MatrixTraffic::flops), 2.0 * 1'698'944);
}

TEST(Exercise06d, GPT2SmallsShapeReads90MillionWeights) {
  // 12 layers, 768 dims, our 7,129 characters: lesson 08's model that no cache holds
  const std::vector<MatrixTraffic> m = step_matrices(config(7129, 12, 12, 768), 8, 8, 4.0);
  EXPECT_DOUBLE_EQ(total(m, &MatrixTraffic::bytes), 4.0 * 90'409'728)
      << "12 x 12 x 768^2 + 7,129 x 768 weights";
  EXPECT_DOUBLE_EQ(m[3].bytes, 12.0 * 768 * 3072 * 4) << "fc_proj: 12 layers of 768 x 3072";
}

TEST(Exercise06d, AWindowStepComputesLogitsForItsLastRowOnly) {
  const std::vector<MatrixTraffic> m = step_matrices(config(50, 2, 2, 16), 10, 1, 4.0);
  EXPECT_EQ(m[0].inputs, 10u) << "every position of the window goes through the blocks";
  EXPECT_EQ(m[4].inputs, 1u) << "only the last position's logits are wanted";
  EXPECT_DOUBLE_EQ(m[4].flops, 2.0 * 50 * 16);
}

TEST(Exercise06d, AttentionReadsAKeyAndAValuePerPositionPerLayer) {
  EXPECT_DOUBLE_EQ(kv_bytes_read(config(3, 1, 1, 2), 1), 2.0 * 2 * 4)
      << "one key and one value of C = 2 floats, 4 bytes a float";
  EXPECT_DOUBLE_EQ(kv_bytes_read(config(3, 3, 1, 2), 5), 5 * 2.0 * 2 * 4 * 3)
      << "5 keys, in each of 3 layers";
  // our model, one new row with 64 positions cached: it attends to 65
  EXPECT_DOUBLE_EQ(kv_bytes_read(config(7129, 4, 4, 128), 65), 65 * 2.0 * 128 * 4 * 4);
  EXPECT_DOUBLE_EQ(kv_bytes_read(config(7129, 4, 4, 128), 0), 0.0);
}

TEST(Exercise06d, BadFormatsAndRowCountsAreErrors) {
  const GPTConfig c = config(50, 2, 2, 16);
  EXPECT_THROW(step_matrices(c, 1, 1, 0.0), std::invalid_argument) << "0 bytes a weight";
  EXPECT_THROW(step_matrices(c, 1, 1, -4.0), std::invalid_argument) << "negative bytes";
  EXPECT_THROW(step_matrices(c, 1, 2, 4.0), std::invalid_argument)
      << "more output rows than rows through the model";
}

}  // namespace
