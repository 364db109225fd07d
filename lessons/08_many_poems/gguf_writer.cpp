#include "08_many_poems/gguf_writer.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace tang::gguf {

namespace {

constexpr std::uint32_t kVersion = 3;

template <typename T>
void put(std::string& out, T value) {
  static_assert(std::endian::native == std::endian::little, "GGUF is little-endian");
  const auto* bytes = reinterpret_cast<const char*>(&value);
  out.append(bytes, sizeof value);
}

void put_string(std::string& out, const std::string& text) {
  put<std::uint64_t>(out, text.size());
  out += text;
}

void pad_to(std::string& out, std::size_t alignment) {
  out.append((alignment - out.size() % alignment) % alignment, '\0');
}

}  // namespace

GgufWriter::GgufWriter(std::uint32_t alignment) : alignment_(alignment) {
  if (alignment == 0 || alignment % 8 != 0) {
    throw std::invalid_argument("GGUF alignment must be a multiple of 8");
  }
  add_u32("general.alignment", alignment);
}

void GgufWriter::begin_kv(const std::string& key, ValueType type) {
  if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) {
    throw std::logic_error("GGUF key " + key + " added twice");
  }
  keys_.push_back(key);
  put_string(kv_bytes_, key);
  put(kv_bytes_, static_cast<std::uint32_t>(type));
  ++kv_count_;
}

void GgufWriter::add_u32(const std::string& key, std::uint32_t value) {
  begin_kv(key, ValueType::kU32);
  put(kv_bytes_, value);
}

void GgufWriter::add_f32(const std::string& key, float value) {
  begin_kv(key, ValueType::kF32);
  put(kv_bytes_, value);
}

void GgufWriter::add_bool(const std::string& key, bool value) {
  begin_kv(key, ValueType::kBool);
  put<std::uint8_t>(kv_bytes_, value ? 1 : 0);
}

void GgufWriter::add_string(const std::string& key, const std::string& value) {
  begin_kv(key, ValueType::kString);
  put_string(kv_bytes_, value);
}

// An array: its element type (u32), its length (u64), then the elements.
void GgufWriter::add_strings(const std::string& key, const std::vector<std::string>& values) {
  begin_kv(key, ValueType::kArray);
  put(kv_bytes_, static_cast<std::uint32_t>(ValueType::kString));
  put<std::uint64_t>(kv_bytes_, values.size());
  for (const std::string& v : values) put_string(kv_bytes_, v);
}

void GgufWriter::add_f32s(const std::string& key, const std::vector<float>& values) {
  begin_kv(key, ValueType::kArray);
  put(kv_bytes_, static_cast<std::uint32_t>(ValueType::kF32));
  put<std::uint64_t>(kv_bytes_, values.size());
  for (float v : values) put(kv_bytes_, v);
}

void GgufWriter::add_i32s(const std::string& key, const std::vector<std::int32_t>& values) {
  begin_kv(key, ValueType::kArray);
  put(kv_bytes_, static_cast<std::uint32_t>(ValueType::kI32));
  put<std::uint64_t>(kv_bytes_, values.size());
  for (std::int32_t v : values) put(kv_bytes_, v);
}

void GgufWriter::add_tensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                            const float* data, TensorType type) {
  if (ne.empty() || ne.size() > 4) throw std::invalid_argument(name + ": 1 to 4 dimensions");
  std::size_t n = 1;
  for (std::uint64_t d : ne) n *= d;
  Tensor t{name, ne, type, {}};
  if (type == TensorType::kF32) {
    t.data.assign(reinterpret_cast<const char*>(data), n * sizeof(float));
  } else {
    if (ne[0] % kQ8Block != 0) {
      throw std::invalid_argument(name + ": Q8_0 needs rows of a multiple of 32 values");
    }
    quantize_q8_0(data, n, t.data);
  }
  tensors_.push_back(std::move(t));
}

std::size_t GgufWriter::tensor_count(TensorType type) const {
  return static_cast<std::size_t>(std::count_if(tensors_.begin(), tensors_.end(),
                                                [&](const Tensor& t) { return t.type == type; }));
}

std::string GgufWriter::bytes() const {
  std::string out;
  out += "GGUF";
  put(out, kVersion);
  put<std::uint64_t>(out, tensors_.size());
  put<std::uint64_t>(out, kv_count_);
  out += kv_bytes_;
  // tensor infos; offsets count from the start of the data part, each aligned
  std::uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    put_string(out, t.name);
    put(out, static_cast<std::uint32_t>(t.ne.size()));
    for (std::uint64_t d : t.ne) put(out, d);
    put(out, static_cast<std::uint32_t>(t.type));
    put(out, offset);
    offset += t.data.size();
    offset += (alignment_ - offset % alignment_) % alignment_;
  }
  pad_to(out, alignment_);
  for (const Tensor& t : tensors_) {
    out += t.data;
    pad_to(out, alignment_);  // the data part starts aligned, so this aligns each offset
  }
  return out;
}

std::uint16_t fp16_bits(float value) {
  std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  f &= 0x7fffffffu;
  if (f >= 0x7f800000u) {  // infinity, NaN (kept a NaN)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (f > 0x7f800000u ? 0x200u : 0u));
  }
  if (f >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and above round to infinity
  std::uint32_t half = 0;
  std::uint32_t rest = 0;
  std::uint32_t halfway = 0;
  if (f >= 0x38800000u) {  // 2^-14 and above: a normal fp16, 10 of the 23 mantissa bits kept
    half = ((((f >> 23) - 127 + 15) << 10) | ((f & 0x7fffffu) >> 13));
    rest = f & 0x1fffu;
    halfway = 0x1000u;
  } else if (f > 0x33000000u) {  // above 2^-25: a subnormal fp16, a multiple of 2^-24
    const std::uint32_t mantissa = (f & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - (f >> 23);  // 14 .. 24
    half = mantissa >> shift;
    rest = mantissa & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  } else {
    return sign;  // 2^-25 and below round to zero
  }
  if (rest > halfway || (rest == halfway && (half & 1u) != 0)) ++half;  // ties to even
  return static_cast<std::uint16_t>(sign | half);
}

float fp16_value(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  float magnitude = 0;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) | sign);
}

// llama.cpp's Q8_0 against lesson 08's int8 (exercise 08a): both cut a row into blocks
// of 32 and store round(x / d) in [-127, 127] with d = max |x| / 127. Lesson 08 keeps d
// as a float32 (4 bytes a block); Q8_0 keeps it as an fp16 (2 bytes), 34 bytes a block
// against 36. The fp16 d is d rounded to 11 significant bits (a relative error up to
// 2^-11), so every weight of a block moves by that fraction too, on top of the half
// step of rounding. The codes here divide by the fp16 d that is stored, so each weight
// comes back within d/2 of its value (ggml's own quantizer divides by the float d).
void quantize_q8_0(const float* x, std::size_t n, std::string& out) {
  if (n % kQ8Block != 0) throw std::invalid_argument("Q8_0: n must be a multiple of 32");
  for (std::size_t b = 0; b < n; b += kQ8Block) {
    float largest = 0;
    for (std::size_t i = b; i < b + kQ8Block; ++i) {
      if (!std::isfinite(x[i])) throw std::invalid_argument("Q8_0: a weight is not finite");
      largest = std::max(largest, std::fabs(x[i]));
    }
    const std::uint16_t d_bits = fp16_bits(largest / 127.0f);
    const float d = fp16_value(d_bits);
    if (!std::isfinite(d)) throw std::invalid_argument("Q8_0: a weight is beyond fp16's range");
    put(out, d_bits);
    for (std::size_t i = b; i < b + kQ8Block; ++i) {
      const long code = d == 0 ? 0 : std::clamp(std::lround(x[i] / d), -127L, 127L);
      put(out, static_cast<std::int8_t>(code));
    }
  }
}

}  // namespace tang::gguf
