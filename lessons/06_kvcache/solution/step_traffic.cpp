// SOLUTION to exercise 06d (the learner's file is exercise/step_traffic.cpp,
// whose comment specifies the behaviour).
//
//   bytes of a matrix kind = weights x bytes_per_weight   (read once per step)
//   flops of a matrix kind = 2 x weights x inputs          (a multiply-add per weight per input)

#include "06_kvcache/exercise/step_traffic.hpp"

#include <stdexcept>

namespace tang::reference {

std::vector<MatrixTraffic> step_matrices(const GPTConfig& config, std::size_t rows,
                                         std::size_t output_rows, double bytes_per_weight) {
  if (!(bytes_per_weight > 0.0))
    throw std::invalid_argument("step_matrices: bytes_per_weight must be above 0");
  if (output_rows > rows)
    throw std::invalid_argument("step_matrices: output_rows cannot exceed rows");
  const std::size_t C = config.n_embd, L = config.n_layer;
  std::vector<MatrixTraffic> matrices = {{"qkv", 3 * C, C, L, rows},
                                         {"attn_proj", C, C, L, rows},
                                         {"fc", 4 * C, C, L, rows},
                                         {"fc_proj", C, 4 * C, L, rows},
                                         {"output", config.vocab_size, C, 1, output_rows}};
  for (MatrixTraffic& m : matrices) {
    const double weights = static_cast<double>(m.rows * m.cols * m.count);
    m.bytes = weights * bytes_per_weight;
    m.flops = 2.0 * weights * static_cast<double>(m.inputs);
  }
  return matrices;
}

double kv_bytes_read(const GPTConfig& config, std::size_t keys) {
  // a key and a value of C floats for every position attended, in every layer
  return 2.0 * static_cast<double>(keys) * static_cast<double>(config.n_embd) * 4.0 *
         static_cast<double>(config.n_layer);
}

}  // namespace tang::reference
