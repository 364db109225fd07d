#include "corpus_count.hpp"

#include <fstream>
#include <sstream>

#include "errors.hpp"

namespace tang {

FollowCount count_followers(const std::string& corpus_path, const std::string& text,
                            const std::string& next) {
  std::ifstream in(corpus_path, std::ios::binary);
  if (!in) throw UserError("corpus " + corpus_path + " not found: pass --corpus PATH");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string corpus = buffer.str();
  FollowCount count;
  // UTF-8 is self-synchronising: a byte match of whole characters is a character match.
  for (std::size_t at = corpus.find(text); at != std::string::npos; at = corpus.find(text, at + 1)) {
    count.occurrences += 1;
    if (corpus.compare(at + text.size(), next.size(), next) == 0) count.followed += 1;
  }
  return count;
}

}  // namespace tang
