#include "quantize_run.hpp"

#include <algorithm>
#include <cmath>

namespace tang {

float quantize_run(const float* x, std::size_t n, std::size_t stride, int qmax,
                   std::int8_t* codes) {
  float largest = 0.0f;
  for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(x[i * stride]));
  const float scale = largest / static_cast<float>(qmax);
  for (std::size_t i = 0; i < n; ++i) {
    const long q = scale == 0.0f ? 0 : std::lround(x[i * stride] / scale);
    codes[i * stride] = static_cast<std::int8_t>(std::clamp<long>(q, -qmax, qmax));
  }
  return scale;
}

void dequantize_run(const std::int8_t* codes, float scale, std::size_t n, std::size_t stride,
                    float* x) {
  for (std::size_t i = 0; i < n; ++i) x[i * stride] = static_cast<float>(codes[i * stride]) * scale;
}

}  // namespace tang
