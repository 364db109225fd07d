// checkpoint_errors_test: every way a checkpoint file can be broken gets its own
// one-line error (label robustness).
//
// Each row of the table below is one hand-made bad file: a valid tiny model
// (5 characters, 1 layer, 2 heads, 4 dims, context 3) written in memory, then
// damaged in one place: its bytes cut or changed, or its JSON header rewritten.
// The file is written to disk and loaded with load_checkpoint(), as a lesson
// would load it. The row names the part of the error a learner should see.
//
// Beyond "it throws", the table checks that the errors stay apart: no row's
// error contains the text another row expects, so two different problems never
// print the same thing. docs/robustness.md lists the messages.

#include <gtest/gtest.h>
#include <unistd.h>  // getpid

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "gpt.hpp"
#include "parameters.hpp"
#include "safetensors.hpp"

namespace fs = std::filesystem;

namespace {

using json = nlohmann::json;
using tang::SafetensorsFile;

// --- a valid tiny model, and its file ------------------------------------------------

tang::GPT tiny_model() {
  tang::GPTConfig config;
  config.vocab_size = 5;
  config.block_size = 3;
  config.n_layer = 1;
  config.n_head = 2;
  config.n_embd = 4;
  tang::Tensor<1> parameters = tang::Tensor<1>::from_shape({tang::parameter_count(config)});
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    parameters(i) = 0.125f * static_cast<float>(i) - 10.0f;  // every value different, exact
  }
  return tang::GPT(config, tang::Tokenizer({"\n", "春", "风", "，", "。"}), std::move(parameters));
}

SafetensorsFile tiny_file() {
  return tang::model_to_safetensors(tiny_model());
}
std::string good_bytes() {
  return tang::serialize_safetensors(tiny_file());
}

// --- taking a file apart and putting it back together ---------------------------------

std::uint64_t declared_header_length(const std::string& file) {
  std::uint64_t n = 0;
  std::memcpy(&n, file.data(), 8);
  return n;
}

// The 8-byte length, then the header text, then the data; the length is whatever we say.
std::string assemble(std::uint64_t length, const std::string& header_text,
                     const std::string& data) {
  std::string out(8, '\0');
  std::memcpy(out.data(), &length, 8);
  return out + header_text + data;
}
std::string assemble(const std::string& header_text, const std::string& data) {
  return assemble(header_text.size(), header_text, data);
}

struct Parts {
  json header;       // tensor name -> {dtype, shape, data_offsets}, plus "__metadata__"
  std::string data;  // the raw tensor bytes
};

Parts good_parts() {
  const std::string file = good_bytes();
  const std::uint64_t n = declared_header_length(file);
  return {json::parse(file.substr(8, n)), file.substr(8 + n)};
}

// The good file with its header (and data) changed by `edit`.
template <typename Edit>
std::string edited(Edit edit) {
  Parts p = good_parts();
  edit(p.header, p.data);
  return assemble(p.header.dump(), p.data);
}

std::string with_metadata(const std::string& key, const json& value) {
  return edited([&](json& header, std::string&) { header["__metadata__"][key] = value; });
}

// The good file as a SafetensorsFile changed by `edit`, then written properly:
// a file whose format is fine but whose model is not.
template <typename Edit>
std::string rewritten(Edit edit) {
  SafetensorsFile file = tiny_file();
  edit(file);
  return tang::serialize_safetensors(file);
}

// Move the data of every tensor that starts at or after `from` by `by` bytes.
void shift_offsets(json& header, std::uint64_t from, std::uint64_t by) {
  for (auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    auto& offsets = entry["data_offsets"];
    if (offsets[0].get<std::uint64_t>() >= from) {
      offsets[0] = offsets[0].get<std::uint64_t>() + by;
      offsets[1] = offsets[1].get<std::uint64_t>() + by;
    }
  }
}

std::uint64_t begin_of(const json& header, const std::string& name) {
  return header[name]["data_offsets"][0].get<std::uint64_t>();
}

std::string vocab_json(const std::vector<std::string>& characters) {
  return json(characters).dump();
}

// --- the table -------------------------------------------------------------------------

struct BadFile {
  std::string name;                  // what is wrong, in words
  std::optional<std::string> bytes;  // the file; none: there is no file at all
  std::string expected;              // the distinctive part of the error
};

// gtest names a failing row by this, not by its bytes.
void PrintTo(const BadFile& row, std::ostream* out) {
  *out << "'" << row.name << "'";
}

std::vector<BadFile> bad_files() {
  std::vector<BadFile> rows;
  const std::string good = good_bytes();
  const Parts parts = good_parts();
  const std::uint64_t n = declared_header_length(good);

  // --- the safetensors container -----------------------------------------------------
  rows.push_back({"file shorter than 8 bytes", good.substr(0, 5), "is shorter than 8 bytes"});
  rows.push_back({"header length over 100 MB",
                  assemble(100'000'001, good.substr(8, n), good.substr(8 + n)),
                  "declares a 100000001-byte header, over the 100000000-byte limit"});
  rows.push_back({"header length past end of file",
                  assemble(good.size(), good.substr(8, n), good.substr(8 + n)),
                  "-byte header that runs past the end of the file"});
  {
    // A note whose text holds a byte that never starts a UTF-8 character.
    Parts p = parts;
    p.header["__metadata__"]["note"] = "@@";
    std::string text = p.header.dump();
    const std::size_t at = text.find("\"@@\"") + 1;
    text.replace(at, 2, "\xFF\xFF");
    rows.push_back({"header not UTF-8", assemble(text, p.data),
                    "has a header that is not UTF-8 (invalid UTF-8 at byte " + std::to_string(at) +
                        " (not a lead byte)"});
  }
  rows.push_back({"header not JSON", assemble("{\"wte.weight\": {\"dtype\": ", parts.data),
                  "has a header that is not valid JSON"});
  rows.push_back({"header JSON not an object", assemble("[1, 2, 3]", parts.data),
                  "has a JSON header that is not an object"});
  rows.push_back({"__metadata__ value not a string", with_metadata("n_layer", 1),
                  "has __metadata__ entry 'n_layer' that is not a string"});
  rows.push_back({"unknown dtype",
                  edited([](json& h, std::string&) { h["wte.weight"]["dtype"] = "F33"; }),
                  "tensor 'wte.weight' with unknown dtype 'F33'"});
  rows.push_back({"shape product overflow", edited([](json& h, std::string&) {
                    h["wte.weight"]["shape"] = {std::uint64_t{1} << 32, std::uint64_t{1} << 32};
                  }),
                  "tensor 'wte.weight' whose shape overflows"});
  rows.push_back({"byte size overflow", edited([](json& h, std::string&) {
                    h["wte.weight"]["shape"] = {std::uint64_t{1} << 62};  // x 4 bytes > 2^64
                  }),
                  "tensor 'wte.weight' whose byte size overflows"});
  rows.push_back({"data offsets not starting at 0", edited([](json& h, std::string& data) {
                    shift_offsets(h, 0, 4);
                    data.insert(0, 4, '\0');
                  }),
                  "has data that does not start at offset 0 (tensor 'wte.weight')"});
  rows.push_back(
      {"overlapping offsets", edited([](json& h, std::string&) {
         // ln_1.bias starts 8 bytes inside ln_1.weight (same size, so still 16 bytes).
         auto& offsets = h["h.0.ln_1.bias"]["data_offsets"];
         offsets = {offsets[0].get<std::uint64_t>() - 8, offsets[1].get<std::uint64_t>() - 8};
       }),
       "has tensor 'h.0.ln_1.bias' overlapping the tensor before it"});
  rows.push_back({"hole between tensors", edited([](json& h, std::string& data) {
                    const std::uint64_t at = begin_of(h, "wpe.weight");
                    shift_offsets(h, at, 4);
                    data.insert(at, 4, '\0');
                  }),
                  "has a hole in its data before tensor 'wpe.weight'"});
  rows.push_back(
      {"offsets not matching dtype x shape", edited([](json& h, std::string&) {
         h["wte.weight"]["data_offsets"][1] = 84;  // (5, 4) floats are 80 bytes
       }),
       "tensor 'wte.weight' whose data_offsets [0, 84] do not hold 80 bytes (dtype x shape)"});
  rows.push_back({"file longer than header says", good + "junk",
                  "is longer than its header says (4 bytes after the last tensor)"});
  rows.push_back({"file shorter than header says", good.substr(0, good.size() - 4),
                  "is shorter than its header says"});
  {
    // nlohmann::json cannot hold a key twice, so write the second copy into the text.
    const std::string text = parts.header.dump();
    const std::string twice =
        "{\"ln_f.bias\":" + parts.header["ln_f.bias"].dump() + "," + text.substr(1);
    rows.push_back({"duplicate tensor names", assemble(twice, parts.data),
                    "names the tensor 'ln_f.bias' twice"});
    // the same inside one tensor entry, and inside __metadata__ (the last used to win)
    const std::string entry = parts.header["ln_f.bias"].dump();
    const std::string doubled_entry = "{\"dtype\":\"F16\"," + entry.substr(1);
    std::string in_entry = text;
    in_entry.replace(in_entry.find(entry), entry.size(), doubled_entry);
    rows.push_back({"duplicate key in a tensor entry", assemble(in_entry, parts.data),
                    "has the key 'dtype' twice in one entry"});
    const std::string metadata = parts.header["__metadata__"].dump();
    const std::string doubled_metadata = "{\"n_layer\":\"2\"," + metadata.substr(1);
    std::string in_metadata = text;
    in_metadata.replace(in_metadata.find(metadata), metadata.size(), doubled_metadata);
    rows.push_back({"duplicate key in __metadata__", assemble(in_metadata, parts.data),
                    "has the key 'n_layer' twice in one entry"});
    std::string deep = text;
    deep.insert(deep.size() - 1, ",\"x\":" + std::string(40, '[') + std::string(40, ']'));
    rows.push_back({"header nested 40 levels deep", assemble(deep, parts.data),
                    "has a header nested more than 8 levels deep"});
  }

  // --- the model: tensors ----------------------------------------------------------------
  rows.push_back({"missing tensor", rewritten([](SafetensorsFile& f) {
                    std::erase_if(f.tensors,
                                  [](const auto& t) { return t.name == "h.0.mlp.fc.bias"; });
                  }),
                  "has no tensor 'h.0.mlp.fc.bias'"});
  rows.push_back(
      {"extra tensor", rewritten([](SafetensorsFile& f) {
         const std::vector<float> zeros(20, 0.0f);
         f.tensors.push_back(tang::make_f32_tensor("lm_head.weight", {5, 4}, zeros.data()));
       }),
       "has an unexpected tensor 'lm_head.weight'"});
  rows.push_back({"line break in a tensor name", rewritten([](SafetensorsFile& f) {
                    const std::vector<float> zeros(4, 0.0f);
                    f.tensors.push_back(tang::make_f32_tensor("lm\nhead", {4}, zeros.data()));
                  }),
                  "has an unexpected tensor 'lm\\nhead'"});
  // A weight that is not a number: every logit would be NaN, the text garbage.
  const auto with_weight = [](const std::string& name, std::size_t element, float value) {
    return rewritten([=](SafetensorsFile& f) {
      for (auto& t : f.tensors) {
        if (t.name == name) std::memcpy(t.bytes.data() + 4 * element, &value, 4);
      }
    });
  };
  rows.push_back({"NaN weight", with_weight("h.0.attn.proj.bias", 2, std::nanf("")),
                  "has tensor 'h.0.attn.proj.bias' with a non-finite value (nan) at element 2"});
  rows.push_back({"infinite weight",
                  with_weight("wte.weight", 7, std::numeric_limits<float>::infinity()),
                  "has tensor 'wte.weight' with a non-finite value (inf) at element 7"});
  rows.push_back({"non-F32 dtype for a model tensor", rewritten([](SafetensorsFile& f) {
                    for (auto& t : f.tensors) {
                      if (t.name == "h.0.ln_1.weight") t.dtype = "I32";  // same 4 bytes a value
                    }
                  }),
                  "tensor 'h.0.ln_1.weight' of dtype I32, but this course reads float32 (F32)"});

  // --- the model: metadata against the tensors ----------------------------------------
  rows.push_back({"metadata layers disagree with tensors", with_metadata("n_layer", "2"),
                  "has no tensor 'h.1.ln_1.weight', which its metadata (2 layers"});
  // No tensor shape shows the head count ((3C, C) for any number of heads), so
  // the only head count the loader can reject is one no model can have.
  rows.push_back({"metadata heads impossible", with_metadata("n_head", "0"),
                  "head count must be in [1, 256]"});
  rows.push_back(
      {"metadata dims disagree with tensors", with_metadata("n_embd", "8"),
       "tensor 'wte.weight' of shape (5, 4) but its metadata (1 layers, 2 heads, 8 dims, "
       "context 3, vocabulary 5) needs (5, 8)"});
  rows.push_back({"metadata vocabulary size disagrees with tensors",
                  edited([](json& h, std::string&) {
                    h["__metadata__"]["vocab_size"] = "6";
                    h["__metadata__"]["vocab"] = vocab_json({"\n", "春", "风", "，", "。", "月"});
                  }),
                  "needs (6, 4)"});
  rows.push_back({"metadata block size disagrees with tensors", with_metadata("block_size", "7"),
                  "tensor 'wpe.weight' of shape (3, 4) but its metadata"});
  rows.push_back({"metadata asks for a 50 TB model", edited([](json& h, std::string&) {
                    h["__metadata__"]["n_layer"] = "256";
                    h["__metadata__"]["n_head"] = "256";
                    h["__metadata__"]["n_embd"] = "65536";
                    h["__metadata__"]["block_size"] = "65536";
                  }),
                  "needs (5, 65536)"});
  rows.push_back({"n_embd not divisible by n_head", with_metadata("n_head", "3"),
                  "embedding width 4 is not divisible by head count 3"});
  // lesson 10's variants: the metadata says how keys and values are shared, the shapes must agree
  rows.push_back({"metadata shares key/value heads the tensors do not",
                  with_metadata("n_kv_head", "1"),
                  "tensor 'h.0.attn.qkv.weight' of shape (12, 4) but its metadata (1 layers, 2 "
                  "heads, 4 dims, context 3, vocabulary 5, 1 key/value head) needs (8, 4)"});
  rows.push_back({"key/value heads not dividing the heads", with_metadata("n_kv_head", "3"),
                  "key/value head count 3 must divide head count 2"});
  rows.push_back({"metadata latent the tensors do not have", with_metadata("kv_latent", "2"),
                  "has no tensor 'h.0.attn.q_latent.weight'"});
  rows.push_back({"latent and key/value heads together", edited([](json& h, std::string&) {
                    h["__metadata__"]["n_kv_head"] = "1";
                    h["__metadata__"]["kv_latent"] = "2";
                  }),
                  "it takes no key/value head count"});
  rows.push_back({"key/value head count not a number", with_metadata("n_kv_head", "two"),
                  "has metadata n_kv_head = 'two', not a whole number"});
  rows.push_back({"metadata number not a number", with_metadata("n_embd", "4x"),
                  "has metadata n_embd = '4x', not a whole number"});
  rows.push_back({"metadata without format",
                  edited([](json& h, std::string&) { h["__metadata__"].erase("format"); }),
                  "has no 'format' in its metadata"});

  // --- the model: vocabulary ---------------------------------------------------------
  {
    // 春 cut to its first two bytes. A file's metadata is part of its header, so
    // the header's UTF-8 check catches it first and names the byte.
    Parts p = parts;
    p.header["__metadata__"]["vocab"] = vocab_json({"\n", "@@", "风", "，", "。"});
    std::string text = p.header.dump();
    const std::size_t at = text.find("@@");
    text.replace(at, 2, "\xE6\x98");
    rows.push_back({"vocabulary not valid UTF-8", assemble(text, p.data),
                    "header that is not UTF-8 (invalid UTF-8 at byte " + std::to_string(at) +
                        " (missing continuation byte)"});
  }
  rows.push_back({"vocabulary entry of two characters",
                  with_metadata("vocab", vocab_json({"\n", "春风", "风", "，", "。"})),
                  "has a bad vocabulary (vocabulary entry 1 is not exactly one UTF-8 character"});
  rows.push_back({"vocabulary with a duplicate",
                  with_metadata("vocab", vocab_json({"\n", "春", "春", "，", "。"})),
                  "the character '春' twice (ids 1 and 2)"});
  rows.push_back({"vocabulary with a second newline",
                  with_metadata("vocab", vocab_json({"\n", "春", "\n", "，", "。"})),
                  "the character '\\n' twice (ids 0 and 2)"});
  rows.push_back({"vocabulary not a JSON array", with_metadata("vocab", "春风"),
                  "has a 'vocab' that is not a JSON array"});
  rows.push_back({"vocab_size not matching the vocab array", with_metadata("vocab_size", "6"),
                  "has vocab_size 6 but 5 characters in 'vocab'"});

  // --- no file at all ------------------------------------------------------------------
  rows.push_back({"missing file path", std::nullopt, "not found: pass --checkpoint PATH"});
  return rows;
}

// --- loading a row -------------------------------------------------------------------

fs::path scratch_dir() {
  return fs::temp_directory_path() / ("tang_checkpoint_errors_test_" + std::to_string(getpid()));
}

std::string identifier(const std::string& name) {
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return id;
}

// What load_checkpoint says about the row's file ("no error" when it loads).
std::string load_error(const BadFile& row) {
  const fs::path dir = scratch_dir();
  fs::create_directories(dir);
  const fs::path path = dir / (identifier(row.name) + ".safetensors");
  fs::remove(path);
  if (row.bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(row.bytes->data(), static_cast<std::streamsize>(row.bytes->size()));
  }
  std::string message = "no error";
  try {
    tang::load_checkpoint(path.string());
  } catch (const tang::UserError& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("not a UserError: ") + e.what();
  }
  fs::remove(path);
  return message;
}

class BadCheckpoint : public ::testing::TestWithParam<BadFile> {
 protected:
  static void TearDownTestSuite() { fs::remove_all(scratch_dir()); }
};

TEST_P(BadCheckpoint, GivesItsOwnOneLineError) {
  const BadFile& row = GetParam();
  const std::string message = load_error(row);
  EXPECT_NE(message.find(row.expected), std::string::npos)
      << "expected the error to contain: " << row.expected
      << "\n               it was: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "the error must be one line: " << message;
  EXPECT_EQ(message.find('\r'), std::string::npos) << "the error must be one line: " << message;
  // Says what to do, not only what is wrong.
  const bool advises =
      message.find("use a checkpoint written by lesson_00_train") != std::string::npos ||
      message.find("train one with lesson_00_train") != std::string::npos;
  EXPECT_TRUE(advises) << message;
  // No other row's text: a different problem never reads the same.
  for (const BadFile& other : bad_files()) {
    if (other.name == row.name) continue;
    EXPECT_EQ(message.find(other.expected), std::string::npos)
        << "the error for '" << row.name << "' also matches row '" << other.name
        << "': " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, BadCheckpoint, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<BadFile>& info) {
                           return identifier(info.param.name);
                         });

TEST(CheckpointErrors, TableRowsAreDistinct) {
  const auto rows = bad_files();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (i == j) continue;
      EXPECT_NE(rows[i].name, rows[j].name);
      EXPECT_EQ(rows[i].expected.find(rows[j].expected), std::string::npos)
          << "row '" << rows[i].name << "' expects text that contains row '" << rows[j].name
          << "'s";
    }
  }
}

// Prints the table for docs/robustness.md: `checkpoint_errors_test --gtest_filter=*PrintTable`.
TEST(CheckpointErrors, PrintTable) {
  for (const BadFile& row : bad_files()) {
    std::cout << "| " << row.name << " | `" << load_error(row) << "` |\n";
  }
}

// --- the good file, and where its bytes sit ----------------------------------------------

TEST(CheckpointErrors, TheUndamagedFileLoads) {
  EXPECT_EQ(load_error({"undamaged", good_bytes(), ""}), "no error");
  // So does the good file taken apart and put back together the way the rows are.
  EXPECT_EQ(load_error({"reassembled", edited([](json&, std::string&) {}), ""}), "no error");
  EXPECT_EQ(load_error({"rewritten", rewritten([](SafetensorsFile&) {}), ""}), "no error");
}

TEST(CheckpointErrors, UnalignedDataIsCopiedNotCast) {
  const tang::GPT model = tiny_model();
  const std::string bytes = good_bytes();
  // One extra leading byte: every float in the view sits at an odd address.
  const std::string shifted = "x" + bytes;
  const std::string_view view(shifted.data() + 1, bytes.size());
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(view.data()) % 2, 1u);

  const SafetensorsFile file = tang::parse_safetensors(view, "odd.safetensors");
  const tang::GPT loaded = tang::model_from_safetensors(file, "odd.safetensors");
  ASSERT_EQ(loaded.parameters().size(), model.parameters().size());
  for (std::size_t i = 0; i < model.parameters().size(); ++i) {
    ASSERT_EQ(loaded.parameters()(i), model.parameters()(i)) << "parameter " << i;
  }
  EXPECT_EQ(loaded.parameters()(0), -10.0f);
  EXPECT_EQ(loaded.weights().lnf_b[3], model.weights().lnf_b[3]);
  EXPECT_EQ(loaded.tokenizer().characters(), model.tokenizer().characters());
}

// A SafetensorsFile built in memory skips the header's UTF-8 check; the JSON
// parser of the vocabulary refuses the bad bytes then (nlohmann::json accepts
// only well-formed UTF-8 in strings).
TEST(CheckpointErrors, VocabularyNotUtf8InMemory) {
  SafetensorsFile file = tiny_file();
  file.metadata["vocab"] = "[\"\\n\",\"\xE6\x98\",\"风\",\"，\",\"。\"]";
  std::string message = "no error";
  try {
    tang::model_from_safetensors(file, "m.safetensors");
  } catch (const tang::UserError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("checkpoint m.safetensors has"), std::string::npos) << message;
  EXPECT_NE(message.find("has a 'vocab' that is not a JSON array"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// A tensor built in memory whose bytes do not match its shape is refused, not copied past its end.
TEST(CheckpointErrors, TensorBytesNotMatchingShapeInMemory) {
  SafetensorsFile file = tiny_file();
  file.tensors.back().bytes.resize(file.tensors.back().bytes.size() + 4);
  try {
    tang::model_from_safetensors(file, "m.safetensors");
    FAIL() << "no error";
  } catch (const tang::UserError& e) {
    EXPECT_NE(
        std::string(e.what()).find("tensor 'ln_f.bias' with 20 bytes, but its shape needs 16"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
