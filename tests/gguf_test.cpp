// gguf_test: export_gguf's files read back by a reader of this test's own (written from
// the format's description, not from the writer): the header, the key-values llama.cpp's
// gpt2 graph reads, every tensor's name, shape, type, offset and alignment, every F32
// tensor's bytes against the checkpoint's, every Q8_0 block within half a step of the
// checkpoint; and the one-line errors of bad input (exit status 2, no file written).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "run_command.hpp"
#include "safetensors.hpp"

namespace fs = std::filesystem;
using tang_tests::command_line;
using tang_tests::run_command;

namespace {

const std::string kExport = TANG_EXPORT_GGUF;
const std::string kCheckpoint = std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";

// --- a small GGUF reader ----------------------------------------------------------

struct Value {
  std::uint32_t type = 0;       // GGUF value type; 9 = array
  std::uint32_t elem_type = 0;  // arrays: their elements' type
  std::vector<double> numbers;  // numbers and booleans (one for a scalar)
  std::vector<std::string> strings;
};

struct TensorInfo {
  std::string name;
  std::vector<std::uint64_t> ne;
  std::uint32_t type = 0;  // 0 F32, 8 Q8_0
  std::uint64_t offset = 0;
};

struct Gguf {
  std::uint32_t version = 0;
  std::map<std::string, Value> kv;
  std::vector<TensorInfo> tensors;
  std::size_t data_start = 0;  // file offset of the data part
  std::string bytes;           // the whole file
};

class Cursor {
 public:
  explicit Cursor(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  T read() {
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  std::string read_string() {
    const auto n = read<std::uint64_t>();
    if (n > bytes_.size()) throw std::runtime_error("string length past the end");
    return std::string(take(n), n);
  }
  std::size_t at() const { return at_; }

 private:
  const char* take(std::size_t n) {
    if (n > bytes_.size() - at_) throw std::runtime_error("read past the end of the file");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

double read_number(Cursor& c, std::uint32_t type) {
  switch (type) {
    case 0:
      return c.read<std::uint8_t>();
    case 1:
      return c.read<std::int8_t>();
    case 2:
      return c.read<std::uint16_t>();
    case 3:
      return c.read<std::int16_t>();
    case 4:
      return c.read<std::uint32_t>();
    case 5:
      return c.read<std::int32_t>();
    case 6:
      return c.read<float>();
    case 7:
      return c.read<std::uint8_t>();  // bool
    case 10:
      return static_cast<double>(c.read<std::uint64_t>());
    case 11:
      return static_cast<double>(c.read<std::int64_t>());
    case 12:
      return c.read<double>();
    default:
      throw std::runtime_error("value type " + std::to_string(type));
  }
}

Gguf parse_gguf(std::string bytes) {
  Gguf g;
  g.bytes = std::move(bytes);
  Cursor c(g.bytes);
  if (c.read<std::uint32_t>() != 0x46554747u) throw std::runtime_error("no GGUF magic");
  g.version = c.read<std::uint32_t>();
  const auto tensor_count = c.read<std::uint64_t>();
  const auto kv_count = c.read<std::uint64_t>();
  for (std::uint64_t i = 0; i < kv_count; ++i) {
    const std::string key = c.read_string();
    Value v;
    v.type = c.read<std::uint32_t>();
    std::uint64_t n = 1;
    std::uint32_t each = v.type;
    if (v.type == 9) {
      v.elem_type = each = c.read<std::uint32_t>();
      n = c.read<std::uint64_t>();
    }
    for (std::uint64_t j = 0; j < n; ++j) {
      if (each == 8) {
        v.strings.push_back(c.read_string());
      } else {
        v.numbers.push_back(read_number(c, each));
      }
    }
    if (!g.kv.emplace(key, v).second) throw std::runtime_error("key twice: " + key);
  }
  for (std::uint64_t i = 0; i < tensor_count; ++i) {
    TensorInfo t;
    t.name = c.read_string();
    const auto dims = c.read<std::uint32_t>();
    for (std::uint32_t d = 0; d < dims; ++d) t.ne.push_back(c.read<std::uint64_t>());
    t.type = c.read<std::uint32_t>();
    t.offset = c.read<std::uint64_t>();
    g.tensors.push_back(t);
  }
  const auto alignment = static_cast<std::size_t>(g.kv.at("general.alignment").numbers.at(0));
  g.data_start = (c.at() + alignment - 1) / alignment * alignment;
  return g;
}

std::uint64_t elements(const TensorInfo& t) {
  std::uint64_t n = 1;
  for (std::uint64_t d : t.ne) n *= d;
  return n;
}

std::uint64_t byte_size(const TensorInfo& t) {
  return t.type == 0 ? elements(t) * 4 : elements(t) / 32 * 34;
}

// fp16 bits to a float, by the definition: sign, 5 exponent bits (bias 15), 10 mantissa bits.
double half_value(std::uint16_t h) {
  const int exponent = (h >> 10) & 31;
  const int mantissa = h & 1023;
  const double sign = (h & 0x8000) != 0 ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa == 0 ? sign * INFINITY : NAN;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// --- what the file must hold --------------------------------------------------------

// llama.cpp's name -> ours in the checkpoint (output.weight is the tied wte).
std::map<std::string, std::string> expected_names(std::size_t n_layer) {
  std::map<std::string, std::string> names = {
      {"token_embd.weight", "wte.weight"},   {"position_embd.weight", "wpe.weight"},
      {"output_norm.weight", "ln_f.weight"}, {"output_norm.bias", "ln_f.bias"},
      {"output.weight", "wte.weight"},
  };
  const std::pair<const char*, const char*> layer[] = {
      {"attn_norm.weight", "ln_1.weight"},        {"attn_norm.bias", "ln_1.bias"},
      {"attn_qkv.weight", "attn.qkv.weight"},     {"attn_qkv.bias", "attn.qkv.bias"},
      {"attn_output.weight", "attn.proj.weight"}, {"attn_output.bias", "attn.proj.bias"},
      {"ffn_norm.weight", "ln_2.weight"},         {"ffn_norm.bias", "ln_2.bias"},
      {"ffn_up.weight", "mlp.fc.weight"},         {"ffn_up.bias", "mlp.fc.bias"},
      {"ffn_down.weight", "mlp.proj.weight"},     {"ffn_down.bias", "mlp.proj.bias"},
  };
  for (std::size_t l = 0; l < n_layer; ++l) {
    for (const auto& [llama, ours] : layer) {
      names["blk." + std::to_string(l) + "." + llama] = "h." + std::to_string(l) + "." + ours;
    }
  }
  return names;
}

fs::path scratch_dir() {
  return fs::temp_directory_path() / ("tang_gguf_test_" + std::to_string(::getpid()));
}

// Exports the shipped model once per type, into the scratch folder.
const Gguf& exported(const std::string& type) {
  static std::map<std::string, Gguf> files;
  if (auto it = files.find(type); it != files.end()) return it->second;
  fs::create_directories(scratch_dir());
  const fs::path out = scratch_dir() / ("tang-" + type + ".gguf");
  const auto r =
      run_command(command_line(kExport, {"--out", out.string(), "--type", type}), scratch_dir());
  if (r.status != 0) throw std::runtime_error("export_gguf failed: " + r.err);
  std::printf("%s", r.out.c_str());
  return files.emplace(type, parse_gguf(tang_tests::read_file(out))).first->second;
}

const tang::SafetensorsFile& checkpoint() {
  static const tang::SafetensorsFile file = tang::read_safetensors(kCheckpoint);
  return file;
}

const tang::NamedTensor& checkpoint_tensor(const std::string& name) {
  for (const auto& t : checkpoint().tensors) {
    if (t.name == name) return t;
  }
  throw std::runtime_error("no tensor " + name + " in the checkpoint");
}

class GgufExport : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!fs::exists(kCheckpoint)) GTEST_SKIP() << "data/tang_gpt.safetensors missing";
  }
  static void TearDownTestSuite() { fs::remove_all(scratch_dir()); }
};

TEST_P(GgufExport, HeaderAndKeyValues) {
  const Gguf& g = exported(GetParam());
  const tang::GPTConfig c = tang::config_from_metadata(checkpoint().metadata, kCheckpoint);
  const tang::Tokenizer tokenizer = tang::tokenizer_from_metadata(checkpoint().metadata, "");
  EXPECT_EQ(g.version, 3u);
  const auto number = [&](const std::string& key) { return g.kv.at(key).numbers.at(0); };
  EXPECT_EQ(g.kv.at("general.architecture").strings.at(0), "gpt2");
  EXPECT_EQ(number("general.alignment"), 32);
  EXPECT_EQ(g.kv.at("general.alignment").type, 4u);  // u32, as llama.cpp requires
  EXPECT_EQ(number("general.file_type"), GetParam() == "q8_0" ? 7 : 0);
  EXPECT_EQ(number("gpt2.context_length"), c.block_size);
  EXPECT_EQ(number("gpt2.embedding_length"), c.n_embd);
  EXPECT_EQ(number("gpt2.feed_forward_length"), 4 * c.n_embd);
  EXPECT_EQ(number("gpt2.block_count"), c.n_layer);
  EXPECT_EQ(number("gpt2.attention.head_count"), c.n_head);
  EXPECT_FLOAT_EQ(number("gpt2.attention.layer_norm_epsilon"), 1e-5f);
  EXPECT_EQ(g.kv.at("tokenizer.ggml.model").strings.at(0), "llama");
  // our characters in id order (normal tokens, type 1), then a piece per byte but the
  // newline's (type 6), for the characters we do not know
  std::vector<std::string> tokens = tokenizer.characters();
  for (int b = 0; b < 256; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    if (b != '\n') tokens.push_back(piece);
  }
  EXPECT_EQ(g.kv.at("tokenizer.ggml.tokens").strings, tokens);
  const std::vector<double>& types = g.kv.at("tokenizer.ggml.token_type").numbers;
  ASSERT_EQ(types.size(), tokens.size());
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    EXPECT_EQ(types[t], t < tokenizer.size() ? 1 : 6) << t;
  }
  EXPECT_EQ(g.kv.at("tokenizer.ggml.scores").numbers.size(), tokens.size());
  EXPECT_EQ(number("tokenizer.ggml.eos_token_id"), tokenizer.newline());
  EXPECT_EQ(number("tokenizer.ggml.add_bos_token"), 0);
  EXPECT_EQ(number("tokenizer.ggml.add_space_prefix"), 0);
}

TEST_P(GgufExport, TensorInfosShapesOffsetsAlignment) {
  const Gguf& g = exported(GetParam());
  const bool q8 = GetParam() == "q8_0";
  const auto names = expected_names(4);
  ASSERT_EQ(g.tensors.size(), names.size());
  EXPECT_EQ(g.data_start % 32, 0u);
  std::uint64_t end_of_previous = 0;
  for (const TensorInfo& t : g.tensors) {
    SCOPED_TRACE(t.name);
    ASSERT_TRUE(names.count(t.name)) << "unexpected tensor";
    const tang::NamedTensor& ours = checkpoint_tensor(names.at(t.name));
    // ne[0] innermost: our (rows, cols) is {cols, rows}; the vocabulary's rows gain the
    // byte pieces'
    std::vector<std::uint64_t> ne(ours.shape.rbegin(), ours.shape.rend());
    if (ours.name == "wte.weight") ne[1] = g.kv.at("tokenizer.ggml.tokens").strings.size();
    EXPECT_EQ(t.ne, ne);
    const bool quantised =
        q8 && t.ne.size() == 2 && t.name != "position_embd.weight" && t.name != "output.weight";
    EXPECT_EQ(t.type, quantised ? 8u : 0u);
    EXPECT_EQ(t.offset % 32, 0u);
    EXPECT_GE(t.offset, end_of_previous);  // no overlap, in file order
    end_of_previous = t.offset + byte_size(t);
    EXPECT_LE(g.data_start + end_of_previous, g.bytes.size());
  }
  EXPECT_LT(g.bytes.size() - (g.data_start + end_of_previous), 32u);  // nothing but padding
}

// The rows after our V characters of token_embd (zeros) and output (a logit of -100
// whatever the text: r_i g_i is the same k for every i, g the final LayerNorm's scale,
// and r . b = -100, b its bias).
void check_byte_piece_rows(const Gguf& g, const TensorInfo& t, std::size_t ours) {
  SCOPED_TRACE("byte piece rows");
  const std::size_t C = t.ne[0];
  const std::size_t rows = t.ne[1] - ours / C;
  const char* data = g.bytes.data() + g.data_start + t.offset;
  if (t.name == "token_embd.weight") {
    const std::size_t from = t.type == 0 ? ours * 4 : ours / 32 * 34;
    const std::string zeros(byte_size(t) - from, '\0');
    EXPECT_EQ(std::memcmp(data + from, zeros.data(), zeros.size()), 0);
    return;
  }
  ASSERT_EQ(t.type, 0u);
  const std::vector<float> scale = checkpoint_tensor("ln_f.weight").to_floats();
  const std::vector<float> bias = checkpoint_tensor("ln_f.bias").to_floats();
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<float> row(C);
    std::memcpy(row.data(), data + (ours + r * C) * 4, C * 4);
    double logit = 0;
    for (std::size_t i = 0; i < C; ++i) {
      logit += static_cast<double>(row[i]) * bias[i];
      EXPECT_NEAR(row[i] * scale[i], row[0] * scale[0], 1e-5 * std::fabs(row[0] * scale[0]));
    }
    EXPECT_NEAR(logit, -100, 1e-3);
  }
}

TEST_P(GgufExport, TensorDataMatchesTheCheckpoint) {
  const Gguf& g = exported(GetParam());
  const auto names = expected_names(4);
  std::size_t blocks = 0;
  double worst = 0;  // largest |x - q d| / d over all Q8_0 blocks
  for (const TensorInfo& t : g.tensors) {
    SCOPED_TRACE(t.name);
    const tang::NamedTensor& ours = checkpoint_tensor(names.at(t.name));
    ASSERT_LE(g.data_start + t.offset + byte_size(t), g.bytes.size()) << "past the end";
    const char* data = g.bytes.data() + g.data_start + t.offset;
    std::vector<float> x = ours.to_floats();
    if (ours.name == "wte.weight") check_byte_piece_rows(g, t, x.size());
    if (t.type == 0) {
      ASSERT_GE(byte_size(t), ours.bytes.size());
      EXPECT_EQ(std::memcmp(data, ours.bytes.data(), ours.bytes.size()), 0) << "bytes differ";
      continue;
    }
    x.resize(elements(t), 0.0f);  // token_embd's byte pieces: rows of zeros
    std::size_t bad = 0;
    std::size_t bad_scales = 0;
    for (std::size_t b = 0; b < x.size() / 32; ++b, ++blocks) {
      const char* block = data + 34 * b;
      std::uint16_t d_bits;
      std::memcpy(&d_bits, block, 2);
      const double d = half_value(d_bits);
      double largest = 0;
      for (std::size_t i = 0; i < 32; ++i) {
        const double value = x[32 * b + i];
        const double back = static_cast<std::int8_t>(block[2 + i]) * d;
        largest = std::max(largest, std::fabs(value));
        const double error = std::fabs(value - back);
        if (d > 0) worst = std::max(worst, error / d);
        if (error > d / 2 * (1 + 1e-6) || static_cast<std::int8_t>(block[2 + i]) == -128) ++bad;
      }
      // d is max |x| / 127 to fp16's precision (11 significant bits)
      if (std::fabs(d - largest / 127) > largest / 127 * std::ldexp(1.0, -11) + 1e-12) ++bad_scales;
    }
    EXPECT_EQ(bad, 0u) << "weights further than d/2 from their Q8_0 value";
    EXPECT_EQ(bad_scales, 0u) << "blocks whose scale is not max |x| / 127";
  }
  if (GetParam() == "q8_0") {
    EXPECT_GT(blocks, 0u);
    EXPECT_LE(worst, 0.5 * (1 + 1e-6));
    std::printf("Q8_0: %zu blocks of 32, every weight within %.4f d of its stored value\n", blocks,
                worst);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, GgufExport, ::testing::Values("f32", "q8_0"));

// --- bad input ------------------------------------------------------------------------

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir)) paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

void write_text(const fs::path& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

class GgufExportErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir() / "errors";
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Runs export_gguf; expects exit status 2, one "error:" line naming `names`, and no
  // file left in the folder but those there before.
  void expect_refused(const std::vector<std::string>& args, const std::string& names) {
    const auto before = files_in(dir_);
    const auto r = run_command(command_line(kExport, args), scratch_dir());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(names), std::string::npos) << r.err;
    EXPECT_EQ(files_in(dir_), before) << "a file was left behind";
  }
  fs::path dir_;
};

TEST_F(GgufExportErrors, NotACheckpoint) {
  const fs::path text = dir_ / "poems.txt";
  write_text(text, "床前明月光\n");
  expect_refused({"--checkpoint", text.string(), "--out", (dir_ / "a.gguf").string()},
                 text.string());
}

TEST_F(GgufExportErrors, MissingCheckpoint) {
  expect_refused({"--checkpoint", (dir_ / "nothing.safetensors").string(), "--out",
                  (dir_ / "a.gguf").string()},
                 "nothing.safetensors");
}

TEST_F(GgufExportErrors, OutputExistsAndIsKept) {
  const fs::path out = dir_ / "mine.gguf";
  write_text(out, "keep me");
  expect_refused({"--out", out.string()}, "already exists");
  EXPECT_EQ(tang_tests::read_file(out), "keep me");
}

TEST_F(GgufExportErrors, OutputFolderMissing) {
  expect_refused({"--out", (dir_ / "no" / "a.gguf").string()}, "does not exist");
}

TEST_F(GgufExportErrors, UnknownType) {
  expect_refused({"--out", (dir_ / "a.gguf").string(), "--type", "q4_0"}, "--type");
}

TEST_F(GgufExportErrors, NoOutput) {
  expect_refused({}, "--out");
}

}  // namespace
