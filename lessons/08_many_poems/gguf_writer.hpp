// gguf_writer.hpp: a GGUF version 3 file, the format llama.cpp and its tools load.
//
// A GGUF file is three parts, every number little-endian:
//
//   header        "GGUF", version 3 (u32), tensor count (u64), key-value count (u64)
//   key-values    key (string), value type (u32), value: the model's shape, its vocabulary
//   tensor infos  name (string), n_dims (u32), ne[n_dims] (u64), type (u32), offset (u64)
//   padding       zeros up to a multiple of the alignment (general.alignment, 32 here)
//   data          each tensor's bytes at its offset from the start of the data, which
//                 is a multiple of the alignment (zeros fill the gaps)
//
// A string is its length (u64) then its bytes, no terminating zero. ne[0] is the
// innermost dimension, the one whose elements lie next to each other: a (rows, cols)
// row-major matrix has ne = {cols, rows}. For a weight matrix of ours, stored output-
// major (each row one output's input weights), ne[0] is the input width.
//
// GgufWriter collects key-values and tensors, then bytes() lays the file out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tang::gguf {

// The value types of a key-value (those this writer uses).
enum class ValueType : std::uint32_t {
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
};

// ggml's tensor types (those this writer uses).
enum class TensorType : std::uint32_t {
  kF32 = 0,
  kQ8_0 = 8,
};

// Q8_0: 32 weights share one scale. A block is the scale as an fp16 (2 bytes) then
// 32 int8 codes: 34 bytes for 32 weights instead of 128.
inline constexpr std::size_t kQ8Block = 32;
inline constexpr std::size_t kQ8BlockBytes = 2 + kQ8Block;

class GgufWriter {
 public:
  explicit GgufWriter(std::uint32_t alignment = 32);

  // Each key once; a second add of the same key throws std::logic_error.
  void add_u32(const std::string& key, std::uint32_t value);
  void add_f32(const std::string& key, float value);
  void add_bool(const std::string& key, bool value);
  void add_string(const std::string& key, const std::string& value);
  void add_strings(const std::string& key, const std::vector<std::string>& values);
  void add_f32s(const std::string& key, const std::vector<float>& values);
  void add_i32s(const std::string& key, const std::vector<std::int32_t>& values);

  // A tensor of prod(ne) floats; ne[0] innermost. kQ8_0 needs ne[0] to be a multiple
  // of 32 and every value finite (std::invalid_argument otherwise).
  void add_tensor(const std::string& name, const std::vector<std::uint64_t>& ne, const float* data,
                  TensorType type);

  std::size_t tensor_count() const { return tensors_.size(); }
  std::size_t tensor_count(TensorType type) const;
  std::size_t kv_count() const { return kv_count_; }

  // The whole file.
  std::string bytes() const;

 private:
  struct Tensor {
    std::string name;
    std::vector<std::uint64_t> ne;
    TensorType type;
    std::string data;
  };
  void begin_kv(const std::string& key, ValueType type);

  std::uint32_t alignment_;
  std::vector<std::string> keys_;
  std::string kv_bytes_;  // the key-values, serialised in the order added
  std::size_t kv_count_ = 0;
  std::vector<Tensor> tensors_;
};

// The float16 nearest to `value` (ties to even), as its 16 bits.
std::uint16_t fp16_bits(float value);
// Its value back.
float fp16_value(std::uint16_t bits);

// x (n, a multiple of 32) -> n / 32 Q8_0 blocks appended to `out`.
void quantize_q8_0(const float* x, std::size_t n, std::string& out);

}  // namespace tang::gguf
