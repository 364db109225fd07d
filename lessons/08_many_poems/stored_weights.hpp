// stored_weights.hpp: the weight matrices of a decoding step, stored smaller than fp32.
//
// A cached decoding step reads every weight matrix once (lesson 06): 6.8 MB of
// float32 for our model, however little arithmetic it does with them. Fewer
// bytes per weight is the other way past that floor (the first is batching:
// lesson 06's cached forward over B caches):
//
//   fp32  4 bytes a weight: the shipped checkpoint, as lessons 01-07 use it
//   bf16  2 bytes: the top half of the float32 (8 exponent bits, 7 mantissa
//         bits), rounded to nearest even (exercise 08b); turned back into
//         float32 to multiply
//   int8  about 1.1 bytes: each block of 32 weights of a row as 32 int8 values
//         and one float scale (exercise 08a; like llama.cpp's Q8_0); a row
//         whose width is not a multiple of 32 is padded with zero weights
//
// The weights are converted when the model is loaded, from the one shipped
// fp32 checkpoint: there is no second checkpoint to keep in step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpt.hpp"

namespace tang {

enum class WeightFormat { kFp32, kBf16, kInt8 };

// "fp32", "bf16", "int8"
std::string format_name(WeightFormat format);
std::optional<WeightFormat> format_named(const std::string& name);

// One weight matrix W (rows x cols; a row per output, as common/gpt.hpp stores
// them), in one format.
class StoredMatrix {
 public:
  // `fp32` must outlive the matrix when format is kFp32 (it is used in place).
  StoredMatrix(const float* fp32, std::size_t rows, std::size_t cols, WeightFormat format);

  // out (N, rows) = inp (N, cols) @ W^T, plus bias (rows) when not null. For
  // kFp32 exactly ops::matmul_forward, the bits of every lesson before.
  void matmul(float* out, const float* inp, const float* bias, std::size_t N) const;

  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  WeightFormat format() const { return format_; }
  std::size_t bytes() const;  // what one pass over the matrix reads

 private:
  WeightFormat format_;
  std::size_t rows_, cols_;
  const float* fp32_ = nullptr;      // kFp32: the checkpoint's own floats
  std::vector<std::uint16_t> bf16_;  // kBf16: (rows, cols)
  std::size_t padded_cols_ = 0;      // kInt8: cols rounded up to whole blocks of 32
  std::vector<std::int8_t> quants_;  // kInt8: (rows, padded_cols)
  std::vector<float> scales_;        // kInt8: (rows, padded_cols / 32)
};

// Every matrix a decoding step reads, in one format; LayerNorms, biases and the
// position embeddings stay fp32 (they are 1% of the bytes). In fp32 the matrices
// are `model`'s own floats: the model must outlive them.
struct StoredWeights {
  StoredWeights(const GPT& model, WeightFormat format);
  struct Layer {
    StoredMatrix qkv, attn_proj, fc, fc_proj;
  };
  // Layer l's matrices, as lesson 06's cached forward asks for them.
  const Layer& layer(std::size_t l) const { return layers[l]; }
  WeightFormat format;
  std::vector<Layer> layers;
  StoredMatrix output;  // the tied output layer: wte (V, C)
  std::size_t bytes() const;
};

}  // namespace tang
