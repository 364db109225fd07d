#include "safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "atomic_file.hpp"
#include "errors.hpp"
#include "utf8.hpp"

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; this code copies it without byte swaps");

namespace tang {

namespace {

using json = nlohmann::json;

// Bytes per element of each dtype the format defines.
std::size_t dtype_size(const std::string& dtype) {
  static const std::map<std::string, std::size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"I64", 8}, {"U64", 8},     {"F64", 8}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

// a * b, or false when it does not fit.
bool checked_multiply(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return false;
  out = a * b;
  return true;
}

struct Entry {
  std::string name;
  std::string dtype;
  std::vector<std::size_t> shape;
  std::uint64_t begin = 0, end = 0;
};

class Parser {
 public:
  Parser(std::string_view bytes, std::string source) : bytes_(bytes), source_(std::move(source)) {}

  SafetensorsFile parse() {
    if (bytes_.size() < 8) fail("is shorter than 8 bytes, so it is not a safetensors file");
    std::uint64_t header_length = 0;
    std::memcpy(&header_length, bytes_.data(), 8);
    if (header_length > kMaxSafetensorsHeaderBytes) {
      fail("declares a " + std::to_string(header_length) + "-byte header, over the " +
           std::to_string(kMaxSafetensorsHeaderBytes) + "-byte limit");
    }
    if (header_length > bytes_.size() - 8) {
      fail("declares a " + std::to_string(header_length) +
           "-byte header that runs past the end of " + "the file (" +
           std::to_string(bytes_.size()) + " bytes): the file is truncated");
    }
    const std::string_view header = bytes_.substr(8, header_length);
    const std::string_view data = bytes_.substr(8 + header_length);

    try {
      utf8_split(header);
    } catch (const UserError& e) {
      fail(std::string("has a header that is not UTF-8 (") + e.what() + ")");
    }
    const json root = parse_json(header);
    if (!root.is_object()) fail("has a JSON header that is not an object");

    SafetensorsFile file;
    std::vector<Entry> entries;
    for (const auto& [name, value] : root.items()) {
      if (name == "__metadata__") {
        file.metadata = read_metadata(value);
      } else {
        entries.push_back(read_entry(name, value));
      }
    }
    check_layout(entries, data.size());
    for (const Entry& e : entries) {
      NamedTensor t{e.name, e.dtype, e.shape, {}};
      t.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(e.begin),
                     data.begin() + static_cast<std::ptrdiff_t>(e.end));
      file.tensors.push_back(std::move(t));
    }
    return file;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError("checkpoint " + source_ + " " + what +
                    ": use a checkpoint written by lesson_00_train (or the shipped one)");
  }

  json parse_json(std::string_view header) const {
    // nlohmann::json keeps only the last of two equal keys, so a parser callback
    // watches the keys of every object to catch duplicates (tensor names at the
    // top, fields inside a tensor entry or __metadata__), and stops at once at a
    // nesting no safetensors header has (ours are 3 deep).
    constexpr int kMaxDepth = 8;
    std::vector<std::set<std::string>> open_objects;
    std::string duplicate;
    int duplicate_depth = 0;
    auto watch = [&](int depth, json::parse_event_t event, json& parsed) {
      if (depth > kMaxDepth) throw UserError("deep");
      if (event == json::parse_event_t::object_start) open_objects.emplace_back();
      if (event == json::parse_event_t::object_end && !open_objects.empty())
        open_objects.pop_back();
      if (event == json::parse_event_t::key && !open_objects.empty()) {
        const std::string key = parsed.get<std::string>();
        if (!open_objects.back().insert(key).second && duplicate.empty()) {
          duplicate = key;
          duplicate_depth = depth;
        }
      }
      return true;
    };
    json root;
    try {
      root = json::parse(header.begin(), header.end(), watch, /*allow_exceptions=*/false);
    } catch (const UserError&) {
      fail("has a header nested more than " + std::to_string(kMaxDepth) + " levels deep");
    }
    if (root.is_discarded()) fail("has a header that is not valid JSON");
    if (!duplicate.empty() && duplicate_depth == 1)
      fail("names the tensor '" + duplicate + "' twice");
    if (!duplicate.empty()) fail("has the key '" + duplicate + "' twice in one entry");
    return root;
  }

  std::map<std::string, std::string> read_metadata(const json& value) const {
    if (!value.is_object()) fail("has __metadata__ that is not an object");
    std::map<std::string, std::string> metadata;
    for (const auto& [key, v] : value.items()) {
      if (!v.is_string()) fail("has __metadata__ entry '" + key + "' that is not a string");
      metadata[key] = v.get<std::string>();
    }
    return metadata;
  }

  Entry read_entry(const std::string& name, const json& value) const {
    const std::string where = "tensor '" + name + "' ";
    if (!value.is_object()) fail("has " + where + "described by something other than an object");
    if (!value.contains("dtype") || !value["dtype"].is_string())
      fail("has " + where + "without a dtype");
    if (!value.contains("shape") || !value["shape"].is_array())
      fail("has " + where + "without a shape");
    if (!value.contains("data_offsets") || !value["data_offsets"].is_array() ||
        value["data_offsets"].size() != 2) {
      fail("has " + where + "without two data_offsets");
    }
    Entry e;
    e.name = name;
    e.dtype = value["dtype"].get<std::string>();
    const std::size_t element_bytes = dtype_size(e.dtype);
    if (element_bytes == 0) fail("has " + where + "with unknown dtype '" + e.dtype + "'");

    std::uint64_t elements = 1;
    for (const json& d : value["shape"]) {
      if (!d.is_number_unsigned()) fail("has " + where + "with a shape entry that is not a count");
      const std::uint64_t dim = d.get<std::uint64_t>();
      if (!checked_multiply(elements, dim, elements))
        fail("has " + where + "whose shape overflows");
      e.shape.push_back(static_cast<std::size_t>(dim));
    }
    std::uint64_t byte_size = 0;
    if (!checked_multiply(elements, element_bytes, byte_size)) {
      fail("has " + where + "whose byte size overflows");
    }
    for (const json& o : value["data_offsets"]) {
      if (!o.is_number_unsigned()) fail("has " + where + "with an offset that is not a count");
    }
    e.begin = value["data_offsets"][0].get<std::uint64_t>();
    e.end = value["data_offsets"][1].get<std::uint64_t>();
    if (e.end < e.begin || e.end - e.begin != byte_size) {
      fail("has " + where + "whose data_offsets [" + std::to_string(e.begin) + ", " +
           std::to_string(e.end) + "] do not hold " + std::to_string(byte_size) +
           " bytes (dtype x shape)");
    }
    return e;
  }

  // The tensors must tile the data area exactly: from 0, no overlap, no hole,
  // and nothing left over at the end.
  void check_layout(std::vector<Entry>& entries, std::size_t data_size) const {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    std::uint64_t expected = 0;
    for (const Entry& e : entries) {
      if (e.begin < expected) fail("has tensor '" + e.name + "' overlapping the tensor before it");
      if (e.begin > expected) {
        fail(expected == 0 ? "has data that does not start at offset 0 (tensor '" + e.name + "')"
                           : "has a hole in its data before tensor '" + e.name + "'");
      }
      expected = e.end;
    }
    if (expected > data_size) {
      fail("is shorter than its header says (" + std::to_string(expected) +
           " data bytes declared, " + std::to_string(data_size) +
           " present): the file is truncated");
    }
    if (expected < data_size) {
      fail("is longer than its header says (" + std::to_string(data_size - expected) +
           " bytes after the last tensor)");
    }
  }

  std::string_view bytes_;
  std::string source_;
};

}  // namespace

std::size_t NamedTensor::element_count() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::vector<float> NamedTensor::to_floats() const {
  if (dtype != "F32") {
    throw UserError("tensor '" + name + "' has dtype " + dtype +
                    ", but this course reads float32 (F32) weights only: convert the checkpoint");
  }
  std::vector<float> values(bytes.size() / sizeof(float));
  if (!values.empty()) {  // memcpy with a null pointer is undefined even for 0 bytes
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));  // safe if unaligned
  }
  return values;
}

SafetensorsFile parse_safetensors(std::string_view file_bytes, const std::string& source) {
  return Parser(file_bytes, source).parse();
}

namespace {

// The file mapped into memory, read-only: the parser looks at the header first
// and refuses a bad file before the pages of its data are ever read (a 2 GB
// file with a bogus tail costs nothing).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      throw UserError("cannot open checkpoint " + path + " (" + std::strerror(errno) +
                      "): check its permissions");
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw UserError("checkpoint " + path + " is not a regular file");
    }
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0) {
      data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data_ == MAP_FAILED) {
        data_ = nullptr;
        ::close(fd);
        throw UserError("cannot read checkpoint " + path + " (" + std::strerror(errno) + ")");
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// What is at `path`, when it is not a file we can read as a checkpoint.
std::string not_a_checkpoint_file(const std::string& path, const std::string& flag) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return "cannot be reached (" + ec.message() + ")";
  }
  switch (status.type()) {
    case std::filesystem::file_type::regular:
      return "";
    case std::filesystem::file_type::not_found:
      return "not found: pass " + flag + " PATH, or train one with lesson_00_train";
    case std::filesystem::file_type::directory:
      return "is a directory, not a checkpoint file";
    case std::filesystem::file_type::fifo:
      return "is a FIFO (named pipe), not a checkpoint file";
    case std::filesystem::file_type::socket:
      return "is a socket, not a checkpoint file";
    case std::filesystem::file_type::block:
    case std::filesystem::file_type::character:
      return "is a device, not a checkpoint file";
    default:
      return "is not a regular file";
  }
}

}  // namespace

SafetensorsFile read_safetensors(const std::string& path, const std::string& flag) {
  if (const std::string problem = not_a_checkpoint_file(path, flag); !problem.empty()) {
    throw UserError("checkpoint " + path + " " + problem);
  }
  const MappedFile file(path);
  return parse_safetensors(file.bytes(), path);
}

std::string serialize_safetensors(const SafetensorsFile& file) {
  json header = json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::uint64_t offset = 0;
  for (const NamedTensor& t : file.tensors) {
    header[t.name] = {{"dtype", t.dtype},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const std::uint64_t header_length = text.size();

  std::string out(8, '\0');
  std::memcpy(out.data(), &header_length, 8);
  out += text;
  out.reserve(out.size() + offset);
  for (const NamedTensor& t : file.tensors) {
    out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  }
  return out;
}

void write_safetensors(const std::string& path, const SafetensorsFile& file) {
  write_file_atomically(path, serialize_safetensors(file));
}

NamedTensor make_f32_tensor(std::string name, std::vector<std::size_t> shape, const float* data) {
  NamedTensor t{std::move(name), "F32", std::move(shape), {}};
  const std::size_t n = t.element_count();
  t.bytes.resize(n * sizeof(float));
  // A zero-size tensor may pass null; memcpy with null is undefined even for 0 bytes.
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), data, t.bytes.size());
  return t;
}

}  // namespace tang
