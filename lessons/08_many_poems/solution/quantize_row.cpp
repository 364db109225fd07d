// SOLUTION to exercise 08a (the learner's file is exercise/quantize_row.cpp,
// whose comment specifies the behaviour).

#include "08_many_poems/exercise/quantize_row.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tang::reference {

namespace {

void require_whole_blocks(const char* function, std::size_t n) {
  if (n % kQuantBlock != 0) {
    throw std::invalid_argument(std::string(function) + ": a row of " + std::to_string(n) +
                                " values is not a whole number of blocks of " +
                                std::to_string(kQuantBlock));
  }
}

}  // namespace

void quantize_row(const float* x, std::size_t n, std::int8_t* quants, float* scales) {
  require_whole_blocks("quantize_row", n);
  for (std::size_t b = 0; b < n / kQuantBlock; ++b) {
    const float* block = x + b * kQuantBlock;  // (32)
    float max = 0.0f;
    for (std::size_t i = 0; i < kQuantBlock; ++i) max = std::max(max, std::abs(block[i]));
    const float scale = max / 127.0f;
    scales[b] = scale;
    for (std::size_t i = 0; i < kQuantBlock; ++i) {
      // x / scale can pass 127 only where max / 127 is a subnormal float that lost digits
      const long q = scale == 0.0f ? 0 : std::lround(block[i] / scale);
      quants[b * kQuantBlock + i] = static_cast<std::int8_t>(std::clamp(q, -127L, 127L));
    }
  }
}

void dequantize_row(const std::int8_t* quants, const float* scales, std::size_t n, float* x) {
  require_whole_blocks("dequantize_row", n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(quants[i]) * scales[i / kQuantBlock];
}

}  // namespace tang::reference
