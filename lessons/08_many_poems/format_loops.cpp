#include "08_many_poems/format_loops.hpp"

#include <memory>

#include "rng.hpp"

namespace tang {

std::string loop_name(WeightFormat format) {
  return format_name(format);
}

double bytes_per_weight(WeightFormat format) {
  switch (format) {
    case WeightFormat::kFp32:
      return 4.0;
    case WeightFormat::kBf16:
      return 2.0;
    case WeightFormat::kInt8:
      return 36.0 / 32.0;
  }
  return 4.0;
}

std::vector<LoopToMeasure> lesson_loops() {
  std::vector<LoopToMeasure> loops = {plain_fp32_loop()};
  for (WeightFormat f : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
    loops.push_back({loop_name(f), [f](std::size_t rows, std::size_t cols) -> MatmulLoop {
                       auto weights = std::make_shared<std::vector<float>>(rows * cols);
                       Rng rng(7);
                       for (float& w : *weights) w = rng.uniform() - 0.5f;
                       // the matrix keeps `weights` alive: fp32 uses them in place
                       auto matrix = std::make_shared<StoredMatrix>(weights->data(), rows, cols, f);
                       return [matrix, weights](float* out, const float* in, std::size_t B) {
                         matrix->matmul(out, in, nullptr, B);
                       };
                     }});
  }
  return loops;
}

}  // namespace tang
