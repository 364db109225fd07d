// export_gguf: our model as a GGUF file, for llama.cpp and the tools built on it.
//
//   build/release/lessons/08_many_poems/export_gguf --out tang.gguf              float32
//   build/release/lessons/08_many_poems/export_gguf --out tang-q8.gguf --type q8_0
//   build/release/lessons/08_many_poems/export_gguf --out big.gguf --gpt2-small-shaped
//
// --gpt2-small-shaped writes lesson 08's large model instead of the checkpoint: GPT-2
// small's shape with our vocabulary, its random weights from gpt2_small_shaped(seed 1),
// as bench_08_many_poems builds it (big_model.hpp). It is for timing llama.cpp beside
// lesson08/big (benchmarks/peers/llama_cpp_peer.mjs); its text means nothing.
//
// llama.cpp runs the file with its "gpt2" graph: our model is GPT-2's shape (pre-
// LayerNorm blocks, learned positions, GELU, a tied output layer). Each tensor keeps
// its numbers and its layout; only the names change (see the list in main). A weight
// matrix of ours (out, in) is row-major, each row one output's input weights, which is
// ggml's ne = {in, out}: no transposes.
//
// The vocabulary goes in as a SentencePiece ("llama") vocabulary of single characters
// with no merges: llama.cpp's tokenizer then splits a text into characters and looks each
// up, which gives our ids for every character the model knows. A character it does not
// know falls back to its UTF-8 bytes, as pieces "<0xE4>" ...; without them llama.cpp
// stops with an exception (node-llama-cpp already does at load, tokenizing a text of its
// own). So the vocabulary gains a piece per byte after our characters (see byte_pieces):
// as input each reads a row of zeros; as output each scores kBytePieceLogit, whatever the
// text, so that llama.cpp never writes one and our characters keep their probabilities.
//
// The file is never written over an existing one: the bytes go to a temporary file next
// to it, then take the final name only if it is still free.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "08_many_poems/big_model.hpp"
#include "08_many_poems/gguf_writer.hpp"
#include "atomic_file.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "program.hpp"

namespace {

using tang::gguf::TensorType;

// Throws BadOption when `out` cannot be a new file: it exists (even as a dangling
// link), or its folder does not.
void check_new_file(const std::string& out) {
  namespace fs = std::filesystem;
  if (out.empty()) throw tang::BadOption("--out is empty: give the path of the file to write");
  std::error_code ec;
  if (fs::symlink_status(out, ec).type() != fs::file_type::not_found) {
    throw tang::BadOption("--out " + out +
                          " already exists: export_gguf never overwrites a file; remove it "
                          "or pass another path");
  }
  const fs::path folder = fs::path(out).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec)) {
    throw tang::BadOption("--out " + out + ": the folder " + folder.string() +
                          " does not exist: create it or pass another path");
  }
}

// The logit every byte piece gets: e^-100 is 1e-44 of the probability of a character
// with logit 0.
constexpr float kBytePieceLogit = -100.0f;

// "<0x00>" ... "<0xFF>", leaving out the bytes that are characters of ours ("\n"):
// llama.cpp's tokenizer looks for a byte's piece first, then for the byte itself.
std::vector<std::string> byte_pieces(const tang::Tokenizer& tokenizer) {
  std::vector<std::string> pieces;
  for (int b = 0; b < 256; ++b) {
    if (b < 0x80 && tokenizer.find(std::string(1, static_cast<char>(b)))) continue;
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    pieces.emplace_back(piece);
  }
  return pieces;
}

// The output layer's row for a byte piece: a logit of kBytePieceLogit for every text.
// The row meets the final LayerNorm's output y = g * n + b (n: the normalised vector,
// whose C values sum to 0). A row r with r_i g_i = k for every i gives r . (g * n) =
// k sum(n_i) = 0, so its logit is r . b = k sum(b_i / g_i), whatever n is; k picks the
// value. Empty when that cannot be (a scale of 0, or sum(b_i / g_i) = 0).
std::vector<float> byte_piece_row(const tang::GPTWeights& w, std::size_t C) {
  double sum = 0;
  for (std::size_t i = 0; i < C; ++i) {
    if (w.lnf_w[i] == 0) return {};
    sum += static_cast<double>(w.lnf_b[i]) / w.lnf_w[i];
  }
  if (std::fabs(sum) < 1e-3) return {};
  const double k = kBytePieceLogit / sum;
  std::vector<float> row(C);
  for (std::size_t i = 0; i < C; ++i) row[i] = static_cast<float>(k / w.lnf_w[i]);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tang;
  CLI::App app{"export_gguf: the model as a GGUF file for llama.cpp (architecture gpt2)",
               "export_gguf"};
  std::string checkpoint = default_checkpoint_path();
  std::string out;
  std::string type = "f32";
  bool big = false;
  app.add_option("--checkpoint", checkpoint, "model file (safetensors)")->capture_default_str();
  app.add_option("--out", out, "the GGUF file to write; must not exist")->required();
  app.add_option("--type", type, "f32: every number as is; q8_0: matrices in Q8_0")
      ->check(CLI::IsMember({"f32", "q8_0"}))
      ->capture_default_str();
  app.add_flag("--gpt2-small-shaped", big,
               "write lesson 08's large model (GPT-2 small's shape, random weights, seed 1, "
               "the checkpoint's vocabulary) instead of the checkpoint, for timing");
  return run_program(argc, argv, app, [&] {
    check_new_file(out);
    GPT loaded = [&] {
      try {
        return load_checkpoint(checkpoint);
      } catch (const BadOption&) {
        throw;
      } catch (const UserError& e) {  // not a checkpoint: bad input, exit status 2
        throw BadOption(e.what());
      }
    }();
    // The large model takes the checkpoint's tokenizer, as bench_08_many_poems's does.
    const std::optional<GPT> large =
        big ? std::optional<GPT>(gpt2_small_shaped(loaded.tokenizer(), 1)) : std::nullopt;
    const GPT& model = big ? *large : loaded;
    const GPTConfig& c = model.config();
    require_multi_head(c, "export_gguf (llama.cpp's gpt2 graph)");
    const bool q8 = type == "q8_0";
    if (q8 && c.n_embd % gguf::kQ8Block != 0) {
      throw BadOption(
          "--type q8_0 needs a width (n_embd) that is a multiple of 32, this model's "
          "is " +
          std::to_string(c.n_embd) + ": pass --type f32");
    }

    gguf::GgufWriter file;  // general.alignment = 32
    file.add_string("general.architecture", "gpt2");
    file.add_string("general.name", big ? "tang-gpt2-small-shaped" : "tang-gpt");
    file.add_u32("general.file_type", q8 ? 7 : 0);  // llama.cpp's MOSTLY_Q8_0, ALL_F32
    file.add_u32("gpt2.context_length", static_cast<std::uint32_t>(c.block_size));
    file.add_u32("gpt2.embedding_length", static_cast<std::uint32_t>(c.n_embd));
    file.add_u32("gpt2.feed_forward_length", static_cast<std::uint32_t>(4 * c.n_embd));
    file.add_u32("gpt2.block_count", static_cast<std::uint32_t>(c.n_layer));
    file.add_u32("gpt2.attention.head_count", static_cast<std::uint32_t>(c.n_head));
    file.add_f32("gpt2.attention.layer_norm_epsilon", 1e-5f);  // ops.cpp's layernorm
    // The vocabulary: our characters in id order (normal tokens, type 1), then the byte
    // pieces (type 6), no merges. The newline ends a poem. Nothing is added to a text:
    // no BOS, no EOS, no space in front.
    const Tokenizer& tokenizer = model.tokenizer();
    const auto newline = static_cast<std::uint32_t>(tokenizer.newline());
    const std::vector<std::string> pieces = byte_pieces(tokenizer);
    std::vector<std::string> tokens = tokenizer.characters();
    tokens.insert(tokens.end(), pieces.begin(), pieces.end());
    std::vector<std::int32_t> token_types(tokens.size(), 1);
    std::fill(token_types.begin() + static_cast<std::ptrdiff_t>(tokenizer.size()),
              token_types.end(), 6);
    file.add_string("tokenizer.ggml.model", "llama");
    file.add_strings("tokenizer.ggml.tokens", tokens);
    file.add_f32s("tokenizer.ggml.scores", std::vector<float>(tokens.size(), 0.0f));
    file.add_i32s("tokenizer.ggml.token_type", token_types);
    file.add_u32("tokenizer.ggml.bos_token_id", newline);
    file.add_u32("tokenizer.ggml.eos_token_id", newline);
    file.add_bool("tokenizer.ggml.add_bos_token", false);
    file.add_bool("tokenizer.ggml.add_eos_token", false);
    file.add_bool("tokenizer.ggml.add_space_prefix", false);

    // ne[0] is the innermost dimension: a (rows, cols) tensor of ours is {cols, rows}.
    // Under Q8_0, matrices are quantised; vectors (norms, biases) and the position
    // embeddings stay float32, as llama.cpp's own quantizer leaves them, and so does
    // the output layer (below).
    const TensorType matrix = q8 ? TensorType::kQ8_0 : TensorType::kF32;
    const TensorType f32 = TensorType::kF32;
    const GPTWeights& w = model.weights();
    const std::uint64_t C = c.n_embd;
    const std::uint64_t V = c.vocab_size;
    const std::uint64_t T = c.block_size;
    // The token embedding and the output layer (tied) have a row per vocabulary entry:
    // ours (V, C), then a row per byte piece (zeros in, byte_piece_row out).
    const std::uint64_t VB = tokens.size();
    // The large model's final LayerNorm is as initialised (scales 1, biases 0), which
    // leaves no row with a fixed logit: its byte pieces get rows of zeros (logit 0). Its
    // text means nothing anyway; only its time is used.
    const std::vector<float> masked =
        big ? std::vector<float>(c.n_embd, 0.0f) : byte_piece_row(w, c.n_embd);
    if (masked.empty()) {
      throw BadOption("--checkpoint " + checkpoint +
                      ": its final LayerNorm leaves no way to keep "
                      "llama.cpp's byte pieces out of the text (a scale of 0, or biases that "
                      "cancel): export another checkpoint");
    }
    std::vector<float> embedding(w.wte, w.wte + V * C);
    std::vector<float> output = embedding;
    embedding.resize(VB * C, 0.0f);
    for (std::uint64_t b = V; b < VB; ++b)
      output.insert(output.end(), masked.begin(), masked.end());
    file.add_tensor("token_embd.weight", {C, VB}, embedding.data(), matrix);  // (V + bytes, C)
    file.add_tensor("position_embd.weight", {C, T}, w.wpe, f32);              // (T, C)
    for (std::size_t l = 0; l < c.n_layer; ++l) {
      const LayerWeights& layer = w.layers[l];
      const std::string blk = "blk." + std::to_string(l) + ".";
      file.add_tensor(blk + "attn_norm.weight", {C}, layer.ln1_w, f32);
      file.add_tensor(blk + "attn_norm.bias", {C}, layer.ln1_b, f32);
      file.add_tensor(blk + "attn_qkv.weight", {C, 3 * C}, layer.qkv_w, matrix);  // (3C, C)
      file.add_tensor(blk + "attn_qkv.bias", {3 * C}, layer.qkv_b, f32);
      file.add_tensor(blk + "attn_output.weight", {C, C}, layer.attn_proj_w, matrix);
      file.add_tensor(blk + "attn_output.bias", {C}, layer.attn_proj_b, f32);
      file.add_tensor(blk + "ffn_norm.weight", {C}, layer.ln2_w, f32);
      file.add_tensor(blk + "ffn_norm.bias", {C}, layer.ln2_b, f32);
      file.add_tensor(blk + "ffn_up.weight", {C, 4 * C}, layer.fc_w, matrix);  // (4C, C)
      file.add_tensor(blk + "ffn_up.bias", {4 * C}, layer.fc_b, f32);
      file.add_tensor(blk + "ffn_down.weight", {4 * C, C}, layer.fc_proj_w, matrix);  // (C, 4C)
      file.add_tensor(blk + "ffn_down.bias", {C}, layer.fc_proj_b, f32);
    }
    file.add_tensor("output_norm.weight", {C}, w.lnf_w, f32);
    file.add_tensor("output_norm.bias", {C}, w.lnf_b, f32);
    // tied: wte, then the byte pieces' rows. Always float32: those rows cancel the
    // LayerNorm's output only to float32's precision (Q8_0 rounds each weight, and the
    // input too, by a part in 254, which moved their logits from -100 up to +30).
    file.add_tensor("output.weight", {C, VB}, output.data(), f32);

    const std::string bytes = file.bytes();
    if (!tang::write_new_file_atomically(out, bytes)) {
      throw tang::BadOption("--out " + out +
                            " appeared while export_gguf ran: it was left as it is; pass "
                            "another path");
    }
    std::printf(
        "wrote %s: GGUF v3, architecture gpt2, %zu tensors (%zu F32, %zu Q8_0), %zu "
        "key-values, vocabulary %zu (%zu characters, %zu byte pieces), %.2f MB\n",
        out.c_str(), file.tensor_count(), file.tensor_count(TensorType::kF32),
        file.tensor_count(TensorType::kQ8_0), file.kv_count(), tokens.size(), tokenizer.size(),
        pieces.size(), static_cast<double>(bytes.size()) / 1e6);
    return 0;
  });
}
