// safetensors_test: the file format, written and read back, and whole checkpoints.
//
//   [8 bytes: N, little-endian u64][N bytes: JSON header, padded to 8][raw tensor bytes]

#include "safetensors.hpp"

#include <gtest/gtest.h>
#include <unistd.h>  // getpid

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "gpt.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "utf8.hpp"

namespace fs = std::filesystem;

namespace {

using tang::NamedTensor;
using tang::SafetensorsFile;
using tang::UserError;

// A fresh folder per test, removed afterwards.
class OnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() /
          ("tang_safetensors_test_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::vector<std::string> files_in_dir() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir;
};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

template <typename T>
NamedTensor make_tensor(std::string name, std::string dtype, std::vector<std::size_t> shape,
                        const std::vector<T>& values) {
  NamedTensor t{std::move(name), std::move(dtype), std::move(shape), {}};
  t.bytes.resize(values.size() * sizeof(T));
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::vector<float> floats(std::size_t n, float first) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = first + 0.25f * static_cast<float>(i);
  return v;
}

SafetensorsFile sample_file() {
  SafetensorsFile file;
  file.metadata = {
      {"format", "test"}, {"vocab", "[\"\\n\",\"春\",\"风\"]"}, {"note", "春风 \"quoted\" \\"}};
  file.tensors.push_back(tang::make_f32_tensor("matrix", {2, 3}, floats(6, -1.0f).data()));
  file.tensors.push_back(tang::make_f32_tensor("vector", {5}, floats(5, 3.0f).data()));
  file.tensors.push_back(tang::make_f32_tensor("cube", {2, 2, 3}, floats(12, 0.5f).data()));
  file.tensors.push_back(tang::make_f32_tensor("empty", {0, 4}, nullptr));
  file.tensors.push_back(tang::make_f32_tensor("scalar", {}, floats(1, 42.0f).data()));
  file.tensors.push_back(make_tensor<std::int32_t>("ids", "I32", {4}, {0, -1, 7, 2147483647}));
  file.tensors.push_back(make_tensor<std::int64_t>("big", "I64", {2}, {-5, 1ll << 40}));
  file.tensors.push_back(
      make_tensor<std::uint8_t>("odd", "U8", {3}, {1, 2, 255}));  // 3 bytes: unaligned after
  file.tensors.push_back(make_tensor<double>("doubles", "F64", {2, 1}, {3.141592653589793, -0.0}));
  file.tensors.push_back(tang::make_f32_tensor("last", {1, 2}, floats(2, 9.0f).data()));
  return file;
}

void expect_same_file(const SafetensorsFile& read, const SafetensorsFile& written) {
  EXPECT_EQ(read.metadata, written.metadata);
  ASSERT_EQ(read.tensors.size(), written.tensors.size());
  std::map<std::string, const NamedTensor*> by_name;
  for (const auto& t : read.tensors) by_name[t.name] = &t;
  for (const auto& w : written.tensors) {
    ASSERT_TRUE(by_name.count(w.name)) << w.name;
    const NamedTensor& r = *by_name[w.name];
    EXPECT_EQ(r.dtype, w.dtype) << w.name;
    EXPECT_EQ(r.shape, w.shape) << w.name;
    EXPECT_EQ(r.bytes, w.bytes) << w.name;
  }
}

// --- the format --------------------------------------------------------------------

TEST_F(OnDisk, WriteReadRoundTrip) {
  const SafetensorsFile written = sample_file();
  const std::string path = (dir / "sample.safetensors").string();
  tang::write_safetensors(path, written);
  const SafetensorsFile read = tang::read_safetensors(path);
  expect_same_file(read, written);

  // Read back in data order, which is the order they were written in here
  // (the zero-size tensor has an empty range and keeps its place).
  std::vector<std::string> names;
  for (const auto& t : read.tensors) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"matrix", "vector", "cube", "empty", "scalar", "ids",
                                             "big", "odd", "doubles", "last"}));

  const NamedTensor& cube = read.tensors[2];
  EXPECT_EQ(cube.element_count(), 12u);
  EXPECT_EQ(cube.to_floats(), floats(12, 0.5f));
  EXPECT_EQ(read.tensors[3].element_count(), 0u);
  EXPECT_TRUE(read.tensors[3].to_floats().empty());
  EXPECT_EQ(read.tensors[4].element_count(), 1u);  // shape [] is one element
  EXPECT_EQ(read.tensors[4].to_floats(), std::vector<float>{42.0f});
  EXPECT_THROW(read.tensors[5].to_floats(), UserError);  // I32 is not float32
}

TEST(Safetensors, MetadataOnlyAndEmptyFiles) {
  SafetensorsFile only_metadata;
  only_metadata.metadata = {{"a", "b"}};
  expect_same_file(tang::parse_safetensors(tang::serialize_safetensors(only_metadata), "m"),
                   only_metadata);
  const SafetensorsFile nothing;
  expect_same_file(tang::parse_safetensors(tang::serialize_safetensors(nothing), "n"), nothing);
}

TEST(Safetensors, HeaderIsPaddedToEightBytes) {
  SafetensorsFile file = sample_file();
  // Vary the header length through every remainder mod 8.
  for (int extra = 0; extra < 8; ++extra) {
    file.metadata["pad"] = std::string(static_cast<std::size_t>(extra), 'x');
    const std::string bytes = tang::serialize_safetensors(file);
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    EXPECT_EQ(n % 8, 0u) << "extra " << extra;
    ASSERT_LE(8 + n, bytes.size());
    const std::string header = bytes.substr(8, n);
    // Padding is spaces after the JSON, which still parses.
    const std::size_t end = header.find_last_not_of(' ');
    EXPECT_EQ(header[end], '}');
    EXPECT_LT(n - (end + 1), 8u);
    const auto json = nlohmann::json::parse(header);
    EXPECT_EQ(json["__metadata__"]["pad"], file.metadata["pad"]);
    // The data follow the header at once, in order.
    std::size_t data_size = 0;
    for (const auto& t : file.tensors) data_size += t.bytes.size();
    EXPECT_EQ(bytes.size(), 8 + n + data_size);
    EXPECT_EQ(std::memcmp(bytes.data() + 8 + n, file.tensors[0].bytes.data(),
                          file.tensors[0].bytes.size()),
              0);
    EXPECT_EQ(json["matrix"]["data_offsets"], (std::vector<int>{0, 24}));
  }
}

TEST_F(OnDisk, WriteIsAtomicAndReplacesTheOldFile) {
  const std::string path = (dir / "model.safetensors").string();
  SafetensorsFile first = sample_file();
  tang::write_safetensors(path, first);
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"model.safetensors"});

  SafetensorsFile second;
  second.metadata = {{"version", "2"}};
  second.tensors.push_back(tang::make_f32_tensor("w", {1}, floats(1, 1.0f).data()));
  tang::write_safetensors(path, second);
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"model.safetensors"}) << "no .tmp left behind";
  expect_same_file(tang::read_safetensors(path), second);
  EXPECT_EQ(read_bytes(path), tang::serialize_safetensors(second));

  // A folder that does not exist: an error, and nothing written anywhere.
  EXPECT_THROW(tang::write_safetensors((dir / "missing" / "x.safetensors").string(), second),
               UserError);
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"model.safetensors"});
}

TEST_F(OnDisk, DamagedFilesAreUserErrors) {
  const std::string good = tang::serialize_safetensors(sample_file());
  auto message = [](const std::string& bytes) {
    try {
      tang::parse_safetensors(bytes, "f.safetensors");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(good.substr(0, good.size() - 1)).find("truncated"), std::string::npos);
  EXPECT_NE(message(good.substr(0, 20)).find("truncated"), std::string::npos);
  EXPECT_NE(message(good.substr(0, 5)).find("shorter than 8 bytes"), std::string::npos);
  EXPECT_NE(message(good + "x").find("longer than its header says"), std::string::npos);
  EXPECT_THROW(tang::read_safetensors((dir / "nothing.safetensors").string()), UserError);
}

// --- checkpoints ---------------------------------------------------------------------

tang::GPT random_model(std::uint64_t seed) {
  tang::GPTConfig config;
  config.vocab_size = 9;
  config.block_size = 12;
  config.n_layer = 3;
  config.n_head = 2;
  config.n_embd = 6;
  std::vector<std::string> characters{"\n", "，", "。"};
  for (char32_t c : std::u32string(U"春眠不觉晓处")) characters.push_back(tang::utf8_encode(c));
  tang::Rng rng(seed);
  tang::Tensor<1> parameters = tang::Tensor<1>::from_shape({tang::parameter_count(config)});
  for (float& p : parameters) p = rng.normal();
  return tang::GPT(config, tang::Tokenizer(characters), std::move(parameters));
}

TEST_F(OnDisk, CheckpointRoundTrip) {
  const tang::GPT model = random_model(11);
  const std::string path = (dir / "model.safetensors").string();
  tang::save_checkpoint(path, model, {{"trained_by", "nobody"}, {"steps", "0"}});
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"model.safetensors"});

  const tang::GPT loaded = tang::load_checkpoint(path);
  const tang::GPTConfig& a = model.config();
  const tang::GPTConfig& b = loaded.config();
  EXPECT_EQ(b.vocab_size, a.vocab_size);
  EXPECT_EQ(b.block_size, a.block_size);
  EXPECT_EQ(b.n_layer, a.n_layer);
  EXPECT_EQ(b.n_head, a.n_head);
  EXPECT_EQ(b.n_embd, a.n_embd);
  EXPECT_EQ(loaded.tokenizer().characters(), model.tokenizer().characters());
  ASSERT_EQ(loaded.parameters().size(), model.parameters().size());
  EXPECT_EQ(std::memcmp(loaded.parameters().data(), model.parameters().data(),
                        model.parameters().size() * sizeof(float)),
            0);
  // The named views of the loaded model point into its own buffer.
  EXPECT_EQ(loaded.weights().wte, loaded.parameters().data());
  EXPECT_EQ(loaded.weights().lnf_b[5], model.weights().lnf_b[5]);

  // The file itself: metadata as documented, one F32 tensor per parameter, by name.
  const SafetensorsFile file = tang::read_safetensors(path);
  EXPECT_EQ(file.metadata.at("format"), "tang-gpt-1");
  EXPECT_EQ(file.metadata.at("n_layer"), "3");
  EXPECT_EQ(file.metadata.at("n_head"), "2");
  EXPECT_EQ(file.metadata.at("n_embd"), "6");
  EXPECT_EQ(file.metadata.at("block_size"), "12");
  EXPECT_EQ(file.metadata.at("vocab_size"), "9");
  EXPECT_EQ(nlohmann::json::parse(file.metadata.at("vocab")).get<std::vector<std::string>>(),
            model.tokenizer().characters());
  EXPECT_EQ(file.metadata.at("trained_by"), "nobody");
  const auto layout = tang::parameter_layout(model.config());
  ASSERT_EQ(file.tensors.size(), layout.size());
  for (std::size_t i = 0; i < layout.size(); ++i) {
    EXPECT_EQ(file.tensors[i].name, layout[i].name);
    EXPECT_EQ(file.tensors[i].dtype, "F32");
    EXPECT_EQ(file.tensors[i].shape, layout[i].shape);
  }

  // Saving the loaded model again gives the same bytes.
  const std::string again = (dir / "again.safetensors").string();
  tang::save_checkpoint(again, loaded, {{"trained_by", "nobody"}, {"steps", "0"}});
  EXPECT_EQ(read_bytes(again), read_bytes(path));
}

TEST(Checkpoint, InconsistentCheckpointsAreRejected) {
  const tang::GPT model = random_model(3);
  auto message = [](const SafetensorsFile& file) {
    try {
      tang::model_from_safetensors(file, "m.safetensors");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const SafetensorsFile good = tang::model_to_safetensors(model);
  EXPECT_EQ(message(good), "no error");

  SafetensorsFile missing = good;
  missing.tensors.erase(missing.tensors.begin() + 4);
  EXPECT_NE(message(missing).find("no tensor 'h.0.attn.qkv.weight'"), std::string::npos);

  SafetensorsFile extra = good;
  extra.tensors.push_back(tang::make_f32_tensor("lm_head.weight", {1}, floats(1, 0.0f).data()));
  EXPECT_NE(message(extra).find("unexpected tensor 'lm_head.weight'"), std::string::npos);

  SafetensorsFile wrong_size = good;
  wrong_size.metadata["n_embd"] = "8";
  wrong_size.metadata["n_head"] = "2";
  EXPECT_NE(message(wrong_size).find("of shape"), std::string::npos);

  SafetensorsFile short_vocab = good;
  short_vocab.metadata["vocab"] = "[\"\\n\",\"春\"]";
  EXPECT_NE(message(short_vocab).find("vocab_size 9"), std::string::npos);

  SafetensorsFile no_format = good;
  no_format.metadata.erase("format");
  EXPECT_NE(message(no_format).find("'format'"), std::string::npos);
}

}  // namespace
