// exercise/step_traffic.hpp: EXERCISE 06d: what one forward step reads and
// multiplies, counted from the model's shape, before anything is timed.
//
// The cost model of step_cost.hpp turns these counts into a predicted time
// with the machine profile (bytes / bandwidth against flops / loop rate, the
// longer wins). Every step time lessons 06, 08, 10, 11 and 12 predict goes
// through them (predict_step, step_cost.hpp).
// The lessons run the reference solution (solution/step_traffic.cpp) unless
// started with --yours 06d; then YOUR file exercise/step_traffic.cpp, whose
// comment says exactly what it must do:
//   cmake --build --preset release --target exercise_06d_test
//   ctest --preset yours -L '^yours_06d$'
//   build/release/lessons/06_kvcache/lesson_06_kvcache --yours 06d --section 6
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "config.hpp"

namespace tang {

// One kind of weight matrix a step multiplies by: out (N, rows) = in (N, cols) @ W^T,
// `count` of them (one per layer, or one), N = `inputs` rows through each.
struct MatrixTraffic {
  std::string name;  // "qkv", "attn_proj", "fc", "fc_proj", "output"
  std::size_t rows = 0, cols = 0, count = 0, inputs = 0;
  double bytes = 0.0;  // the weights of all `count` matrices, each read once
  double flops = 0.0;  // their products: 2 flops (a multiply and an add) per weight per input
};

}  // namespace tang

namespace tang::mine {

// The five kinds of matrix of a step that runs `rows` rows through every block
// and `output_rows` of them through the output layer, weights stored in
// `bytes_per_weight` bytes each (4 for fp32).
std::vector<MatrixTraffic> step_matrices(const GPTConfig& config, std::size_t rows,
                                         std::size_t output_rows, double bytes_per_weight);

// The bytes of keys and values attention reads in a step whose rows attend to
// `keys` keys in all (summed over the rows), in every layer; float32.
double kv_bytes_read(const GPTConfig& config, std::size_t keys);

}  // namespace tang::mine

// The reference solution's (solution/step_traffic.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::step_matrices) step_matrices;
decltype(mine::kv_bytes_read) kv_bytes_read;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 06d yours, checked
// against it at every call (step_traffic_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::step_matrices) step_matrices;
decltype(mine::kv_bytes_read) kv_bytes_read;
}  // namespace tang
