// safetensors.hpp: read and write the Hugging Face safetensors format.
//
// A safetensors file is
//   [8 bytes: N, little-endian u64][N bytes: JSON header][raw tensor bytes]
// The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]}
// (offsets relative to the start of the raw bytes) and may hold "__metadata__",
// a string-to-string map. Python's `safetensors` and PyTorch read our files as is.
//
// The reader trusts nothing: every size and offset is checked before any
// memory is allocated or any byte is read, and each problem has its own error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tang {

// safetensors caps the JSON header at 100 MB; so do we.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct NamedTensor {
  std::string name;
  std::string dtype;                // "F32", "F16", "I64", ... as in the header
  std::vector<std::size_t> shape;   // row-major
  std::vector<std::uint8_t> bytes;  // raw little-endian data, copied (never cast in place)

  std::size_t element_count() const;
  std::vector<float> to_floats() const;  // only for dtype F32; throws UserError otherwise
};

struct SafetensorsFile {
  std::map<std::string, std::string> metadata;
  std::vector<NamedTensor> tensors;  // in the order of their data offsets
};

// Parse a whole file already in memory. `source` names it in error messages.
SafetensorsFile parse_safetensors(std::string_view file_bytes, const std::string& source);

// Read and parse a file; a missing or unreadable file is a UserError too.
SafetensorsFile read_safetensors(const std::string& path, const std::string& flag = "--checkpoint");

// Serialise (header padded with spaces to a multiple of 8 bytes, as the
// reference implementation does).
std::string serialize_safetensors(const SafetensorsFile& file);

// Write through a temporary file and a rename, so a crash never leaves a
// half-written file at `path`.
void write_safetensors(const std::string& path, const SafetensorsFile& file);

// A tensor of floats with the given shape, as F32.
NamedTensor make_f32_tensor(std::string name, std::vector<std::size_t> shape, const float* data);

}  // namespace tang
