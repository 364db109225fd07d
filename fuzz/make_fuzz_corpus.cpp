// make_fuzz_corpus: writes the seed files of the fuzzers (run once; the files
// are kept in fuzz/corpus/). Usage: make_fuzz_corpus FUZZ_CORPUS_DIR
//
//   checkpoint/  tiny valid checkpoints (vocabulary 5, 1-2 layers, 2-4 dims) and
//                near-valid ones, each broken in one place, plus a plain
//                safetensors file with every kind of tensor the format allows
//   utf8/        poem text, mixed 1- to 4-byte characters, and malformed UTF-8
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "safetensors.hpp"

namespace fs = std::filesystem;

namespace {

tang::GPT tiny_model(std::size_t n_layer, std::size_t n_head, std::size_t n_embd,
                     std::size_t block) {
  tang::GPTConfig config;
  config.vocab_size = 5;
  config.block_size = block;
  config.n_layer = n_layer;
  config.n_head = n_head;
  config.n_embd = n_embd;
  tang::Tensor<1> parameters = tang::Tensor<1>::from_shape({tang::parameter_count(config)});
  for (std::size_t i = 0; i < parameters.size(); ++i)
    parameters(i) = 0.25f * static_cast<float>(i % 17) - 2.0f;
  return tang::GPT(config, tang::Tokenizer({"\n", "春", "风", "，", "。"}), std::move(parameters));
}

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  std::printf("%s (%zu bytes)\n", path.c_str(), bytes.size());
}

void write_checkpoints(const fs::path& dir) {
  const tang::GPT model = tiny_model(1, 2, 4, 4);
  const tang::SafetensorsFile good = tang::model_to_safetensors(model);
  const std::string good_bytes = tang::serialize_safetensors(good);
  write(dir / "tiny_valid.safetensors", good_bytes);
  write(dir / "tiny_valid_notes.safetensors",
        tang::serialize_safetensors(
            tang::model_to_safetensors(model, {{"steps", "0"}, {"note", "seed"}})));
  write(dir / "two_layers_valid.safetensors",
        tang::serialize_safetensors(tang::model_to_safetensors(tiny_model(2, 1, 2, 2))));

  auto near = [&](const char* name, auto edit) {
    tang::SafetensorsFile f = good;
    edit(f);
    write(dir / name, tang::serialize_safetensors(f));
  };
  near("near_vocab_size.safetensors",
       [](tang::SafetensorsFile& f) { f.metadata["vocab_size"] = "6"; });
  near("near_n_head.safetensors", [](tang::SafetensorsFile& f) { f.metadata["n_head"] = "3"; });
  near("near_block_size.safetensors",
       [](tang::SafetensorsFile& f) { f.metadata["block_size"] = "65536"; });
  near("near_huge_model.safetensors", [](tang::SafetensorsFile& f) {  // metadata asks for ~200 GB
    f.metadata["n_layer"] = "256";
    f.metadata["n_embd"] = "65536";
  });
  near("near_vocab_dup.safetensors", [](tang::SafetensorsFile& f) {
    f.metadata["vocab"] = "[\"\\n\",\"春\",\"春\",\"，\",\"。\"]";
  });
  near("near_missing_tensor.safetensors", [](tang::SafetensorsFile& f) { f.tensors.pop_back(); });
  near("near_i32_tensor.safetensors", [](tang::SafetensorsFile& f) { f.tensors[2].dtype = "I32"; });
  write(dir / "near_truncated.safetensors", good_bytes.substr(0, good_bytes.size() - 4));

  // Not a model: every dtype size, a scalar, a zero-size tensor, odd lengths.
  tang::SafetensorsFile plain;
  plain.metadata = {{"format", "pt"}};
  auto add = [&](const char* name, const char* dtype, std::vector<std::size_t> shape,
                 std::size_t bytes) {
    tang::NamedTensor t{name, dtype, std::move(shape), std::vector<std::uint8_t>(bytes)};
    for (std::size_t i = 0; i < bytes; ++i) t.bytes[i] = static_cast<std::uint8_t>(i * 37 + 1);
    plain.tensors.push_back(std::move(t));
  };
  add("u8", "U8", {3}, 3);
  add("f16", "F16", {2, 2}, 8);
  add("scalar", "F32", {}, 4);
  add("empty", "F32", {0, 5}, 0);
  add("i64", "I64", {1}, 8);
  add("bf16", "BF16", {1, 1, 1}, 2);
  write(dir / "plain_dtypes.safetensors", tang::serialize_safetensors(plain));
  write(dir / "empty_header.safetensors", tang::serialize_safetensors(tang::SafetensorsFile{}));
}

void write_texts(const fs::path& dir) {
  write(dir / "poem.txt", "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。\n");
  write(dir / "mixed.txt", "a\xC3\xA9\xE6\x98\xA5\xF0\xA0\x80\x80\n\t~");
  write(dir / "overlong.bin", "ab\xC0\xAF");
  write(dir / "surrogate.bin", "\xED\xA0\x80春");
  write(dir / "cut_off.bin", "春\xE6\x98");
  write(dir / "past_max.bin", "\xF4\x90\x80\x80");
  write(dir / "lone_continuation.bin", "\x80风");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_corpus FUZZ_CORPUS_DIR (e.g. fuzz/corpus)\n");
    return 2;
  }
  const fs::path root = argv[1];
  fs::create_directories(root / "checkpoint");
  fs::create_directories(root / "utf8");
  write_checkpoints(root / "checkpoint");
  write_texts(root / "utf8");
  return 0;
}
