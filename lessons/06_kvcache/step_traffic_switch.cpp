// The switch of exercise 06d (common/exercise_code.hpp): the reference solution's
// counts of a step's bytes and flops, or with --yours 06d yours, checked against
// it at every call.
#include <string>

#include "06_kvcache/exercise/step_traffic.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

// Doubles computed in another order may differ in the last bits: a rounding.
Verdict compare_counts(double yours, double theirs, const std::string& what) {
  return compare_numbers(yours, theirs, 1e-12, 0, what);
}

std::string shape_of(const MatrixTraffic& m) {
  return m.name + " " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " x" +
         std::to_string(m.count) + ", " + std::to_string(m.inputs) + " inputs";
}

Verdict compare_matrices(const std::vector<MatrixTraffic>& yours,
                         const std::vector<MatrixTraffic>& theirs) {
  if (yours.size() != theirs.size()) {
    return compare_exactly(
        false, std::to_string(yours.size()) + " matrices, theirs " + std::to_string(theirs.size()));
  }
  Verdict worst;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    const MatrixTraffic &y = yours[i], &t = theirs[i];
    const std::string shape = shape_of(t);
    if (shape_of(y) != shape)
      return compare_exactly(false, "yours " + shape_of(y) + ", theirs " + shape);
    for (const Verdict& v : {compare_counts(y.bytes, t.bytes, t.name + " bytes"),
                             compare_counts(y.flops, t.flops, t.name + " flops")}) {
      if (v.kind > worst.kind) worst = v;
    }
  }
  return worst;
}

}  // namespace

std::vector<MatrixTraffic> step_matrices(const GPTConfig& config, std::size_t rows,
                                         std::size_t output_rows, double bytes_per_weight) {
  static ExerciseSwitch use("06d", "step_matrices");
  return use.returns(
      reference::step_matrices, mine::step_matrices, compare_matrices,
      [&] {
        return "rows " + std::to_string(rows) + ", output rows " + std::to_string(output_rows) +
               ", " + fixed(bytes_per_weight, 3) + " bytes a weight";
      },
      config, rows, output_rows, bytes_per_weight);
}

double kv_bytes_read(const GPTConfig& config, std::size_t keys) {
  static ExerciseSwitch use("06d", "kv_bytes_read");
  return use.returns(
      reference::kv_bytes_read, mine::kv_bytes_read,
      [](double yours, double theirs) { return compare_counts(yours, theirs, "bytes"); },
      [&] { return "keys " + std::to_string(keys); }, config, keys);
}

}  // namespace tang
