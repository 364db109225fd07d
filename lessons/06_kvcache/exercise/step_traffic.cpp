// EXERCISE 06d: what one forward step reads and multiplies.
//
// A step runs `rows` rows through the model: one new position per text with the
// cache (B texts, B rows), or a whole window of k positions without it. Each
// block multiplies every row by four kinds of weight matrix, W of shape
// (rows_W, cols_W), out (N, rows_W) = in (N, cols_W) @ W^T, and the output layer
// (the token embedding, tied) multiplies the rows whose logits are wanted.
// With C = config.n_embd, L = config.n_layer, V = config.vocab_size:
//
//   name        rows_W x cols_W   count   inputs N
//   "qkv"       3C x C            L       rows          queries, keys, values
//   "attn_proj" C  x C            L       rows          heads back into the stream
//   "fc"        4C x C            L       rows          the MLP's widening
//   "fc_proj"   C  x 4C           L       rows          and narrowing
//   "output"    V  x C            1       output_rows   the logits
//
//   step_matrices(config, rows, output_rows, bytes_per_weight)
//     Return the five, in that order, each with its name, rows, cols, count and
//     inputs, and
//       bytes = rows_W x cols_W x count x bytes_per_weight
//               (every weight is read once per step, however many inputs)
//       flops = 2 x rows_W x cols_W x count x inputs
//               (each weight multiplies each input once, and the product is added)
//     computed in double. Biases, LayerNorm and the position table are left out:
//     under 1% of the bytes here.
//     Throw std::invalid_argument when bytes_per_weight <= 0 or output_rows > rows.
//   kv_bytes_read(config, keys)
//     In every layer a row reads the key and the value (C floats each, 4 bytes a
//     float) of every position it attends to; `keys` is that number summed over
//     the step's rows. Return 2 x keys x C x 4 x L, in double.
//
// Why: one row through our model's matrices is 1,698,944 weights, 6.8 MB in fp32,
// and 2 flops for each: 0.5 flops per byte. A machine that streams 20 GB/s and
// multiplies at 30 GFLOP/s is then bound by memory until about 3 rows share the
// read. Your counts feed every step time lessons 06, 08, 10, 11 and 12 predict.
// Tests: ctest --preset yours -L '^yours_06d$' (tests/exercises/exercise_06d_test.cpp).

#include "06_kvcache/exercise/step_traffic.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "config.hpp"
#include "errors.hpp"

namespace tang::mine {

std::vector<MatrixTraffic> step_matrices(const GPTConfig& config, std::size_t rows,
                                         std::size_t output_rows, double bytes_per_weight) {
  (void)config, (void)rows, (void)output_rows, (void)bytes_per_weight;
  throw NotImplemented(
      "not implemented yet: see exercise 06d (lessons/06_kvcache/exercise/step_traffic.cpp)");
}

double kv_bytes_read(const GPTConfig& config, std::size_t keys) {
  (void)config, (void)keys;
  throw NotImplemented(
      "not implemented yet: see exercise 06d (lessons/06_kvcache/exercise/step_traffic.cpp)");
}

}  // namespace tang::mine
