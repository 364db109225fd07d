#include "poem_dataset.hpp"

#include <fstream>
#include <sstream>

#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

PoemDataset load_poem_dataset(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("corpus " + path + " not found: pass --data PATH (data/tang_poems.txt)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();

  std::vector<std::string> poems;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    try {
      utf8_split(line);
    } catch (const UserError& e) {
      throw UserError("corpus " + path + " line " + std::to_string(number) + ": " + e.what());
    }
    if (!line.empty()) poems.push_back(line);
  }
  if (poems.empty())
    throw UserError("corpus " + path + " has no poems: rebuild it (data/README.md)");

  PoemDataset data{Tokenizer::from_corpus(text), {}, {}, 0, 0};
  for (std::size_t i = 0; i < poems.size(); ++i) {
    std::vector<TokenId>& stream = i % 20 == 0 ? data.heldout : data.train;
    for (TokenId id : data.tokenizer.encode(poems[i] + "\n")) stream.push_back(id);
    (i % 20 == 0 ? data.heldout_poems : data.train_poems) += 1;
  }
  return data;
}

void sample_batch(const std::vector<TokenId>& stream, std::size_t B, std::size_t T, Rng& rng,
                  std::vector<TokenId>& inputs, std::vector<TokenId>& targets) {
  if (stream.size() < T + 1) throw UserError("corpus is shorter than one training window");
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
