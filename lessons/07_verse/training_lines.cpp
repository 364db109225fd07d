#include "07_verse/training_lines.hpp"

#include <fstream>
#include <unordered_set>

#include "03_topk_topp/poem_measures.hpp"  // lines_of_poem (lesson 03)
#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

TrainingLines TrainingLines::from_corpus(const std::string& corpus) {
  std::ifstream in(corpus);
  if (!in)
    throw UserError("cannot read " + corpus + ": pass the poems, one a line (data/tang_poems.txt)");
  TrainingLines t;
  std::size_t index = 0;
  for (std::string poem; std::getline(in, poem); ++index) {
    if (index % 20 == 0) continue;  // held out
    for (const std::string& line : lines_of_poem(poem)) {
      if (line.empty() || !t.lines_.insert(line).second) continue;
      const std::size_t last = line.size() - utf8_split(line).back().size();
      t.endings_[line.substr(0, last)].push_back(line.substr(last));
    }
  }
  return t;
}

const std::vector<std::string>* TrainingLines::endings(const std::string& prefix) const {
  const auto it = endings_.find(prefix);
  return it == endings_.end() ? nullptr : &it->second;
}

}  // namespace tang
