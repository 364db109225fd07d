#include "01_probabilities/corpus_count.hpp"

#include <fstream>
#include <sstream>

#include "errors.hpp"

namespace tang {

namespace {

std::string read_corpus(const std::string& corpus_path) {
  std::ifstream in(corpus_path, std::ios::binary);
  if (!in) throw UserError("corpus " + corpus_path + " not found: pass --corpus PATH");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

FollowCount count_followers(const std::string& corpus_path, const std::string& text,
                            const std::string& next) {
  const std::string corpus = read_corpus(corpus_path);
  FollowCount count;
  // UTF-8 is self-synchronising: a byte match of whole characters is a character match.
  for (std::size_t at = corpus.find(text); at != std::string::npos;
       at = corpus.find(text, at + 1)) {
    count.occurrences += 1;
    if (corpus.compare(at + text.size(), next.size(), next) == 0) count.followed += 1;
  }
  return count;
}

std::vector<std::string> held_out_poems(const std::string& corpus_path) {
  std::istringstream corpus(read_corpus(corpus_path));
  std::vector<std::string> held_out;
  std::size_t index = 0;
  for (std::string poem; std::getline(corpus, poem); ++index) {
    if (index % 20 == 0) held_out.push_back(poem + "\n");
  }
  return held_out;
}

}  // namespace tang
