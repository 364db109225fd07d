#include "00_train/poem_dataset.hpp"

#include <filesystem>
#include <fstream>

#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

namespace {

// The largest corpus we read: 256 MB of text needs about 1 GB while training
// (the text, its two token streams at 4 bytes a character, the batches).
constexpr std::uintmax_t kMaxCorpusBytes = 256u << 20;

std::string read_corpus(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    throw UserError("corpus " + path + " not found: pass --data PATH (data/tang_poems.txt)");
  }
  if (ec) throw UserError("corpus " + path + " cannot be reached (" + ec.message() + ")");
  if (status.type() == fs::file_type::directory) {
    throw UserError("corpus " + path +
                    " is a directory: pass --data with a text file, one poem a line");
  }
  if (status.type() != fs::file_type::regular) {
    throw UserError("corpus " + path +
                    " is not a regular file (a FIFO or a device?): pass --data "
                    "with a text file, one poem a line");
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw UserError("corpus " + path + " cannot be read (" + ec.message() + ")");
  if (size == 0) throw UserError("corpus " + path + " is empty: one poem a line, UTF-8");
  if (size > kMaxCorpusBytes) {
    throw UserError("corpus " + path + " has " + std::to_string(size >> 20) +
                    " MB; the trainer reads at most " + std::to_string(kMaxCorpusBytes >> 20) +
                    " MB (it needs about 4 times the corpus size in memory)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open corpus " + path + ": check its permissions");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(in.gcount()) != size) {
    throw UserError("corpus " + path + " changed while it was read: try again");
  }
  return text;
}

}  // namespace

PoemDataset load_poem_dataset(const std::string& path) {
  std::string text = read_corpus(path);
  // Line endings and marks that would silently become vocabulary characters.
  if (text.find('\0') != std::string::npos) {
    throw UserError("corpus " + path + " contains NUL bytes (byte " +
                    std::to_string(text.find('\0')) + "): it is not a text file");
  }
  if (text.starts_with("\xEF\xBB\xBF")) {
    throw UserError("corpus " + path +
                    " starts with a byte-order mark (EF BB BF): save it as "
                    "UTF-8 without BOM");
  }
  if (text.find('\r') != std::string::npos) {
    const bool crlf = text.find("\r\n") != std::string::npos;
    throw UserError("corpus " + path +
                    (crlf ? " has Windows line endings (CR LF)" : " has CR line endings") +
                    ": convert them to LF (e.g. tr -d '\\r'), one poem a line");
  }
  if (text.find('\n') == std::string::npos) {
    throw UserError("corpus " + path + " has no line break: it needs one poem a line");
  }

  // every line UTF-8, or the error names the line
  std::size_t line_number = 1;
  for (std::size_t offset = 0; offset < text.size();) {
    try {
      offset += utf8_char_length(text, offset);
    } catch (const UserError& e) {
      throw UserError("corpus " + path + " line " + std::to_string(line_number) + ": " + e.what());
    }
    if (text[offset - 1] == '\n') line_number += 1;
  }

  PoemDataset data{Tokenizer::from_corpus(text), {}, {}, 0, 0};
  const TokenId newline = data.tokenizer.newline();
  std::size_t poem = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + begin, end - begin);
    if (!line.empty()) {
      std::vector<TokenId>& stream = poem % 20 == 0 ? data.heldout : data.train;
      for (TokenId id : data.tokenizer.encode(line)) stream.push_back(id);
      stream.push_back(newline);  // the newline that ends every poem
      (poem % 20 == 0 ? data.heldout_poems : data.train_poems) += 1;
      poem += 1;
    }
    begin = end + 1;
  }
  if (data.train_poems == 0) {
    throw UserError("corpus " + path + " has " + std::to_string(data.heldout_poems) +
                    " poem(s), all held out (every 20th poem is): it needs at least 2 lines");
  }
  return data;
}

void require_one_window(const std::vector<TokenId>& stream, std::size_t T) {
  if (stream.size() < T + 1) {
    throw UserError("the training poems have " + std::to_string(stream.size()) +
                    " characters, fewer than one training window of " + std::to_string(T + 1) +
                    " (--block-size " + std::to_string(T) +
                    " + 1): use a larger corpus or a smaller --block-size");
  }
}

void sample_batch(const std::vector<TokenId>& stream, std::size_t B, std::size_t T, Rng& rng,
                  std::vector<TokenId>& inputs, std::vector<TokenId>& targets) {
  require_one_window(stream, T);
  inputs.resize(B * T);
  targets.resize(B * T);
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t start = rng.below(stream.size() - T);
    for (std::size_t t = 0; t < T; ++t) {
      inputs[b * T + t] = stream[start + t];
      targets[b * T + t] = stream[start + t + 1];
    }
  }
}

}  // namespace tang
