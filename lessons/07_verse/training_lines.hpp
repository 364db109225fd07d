// training_lines.hpp: the lines of the training poems, so that a constraint can
// refuse to let the model copy one whole (as THUNLP's Jiuge filters its verse).
//
// A line is the text before a ，or 。 (lesson 03's lines_of_poem). The index is
// by every character but the last: at the end of a line, the constraint looks
// up what the line holds so far and bans each character that would finish a
// training line.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tang {

class TrainingLines {
 public:
  // The lines of every poem of `corpus` but each 20th (the held-out ones, as
  // the trainer splits). Throws UserError when the file cannot be read.
  static TrainingLines from_corpus(const std::string& corpus);

  // The last characters that finish a training line starting with `prefix`
  // (nullptr: none).
  const std::vector<std::string>* endings(const std::string& prefix) const;
  // The distinct training lines themselves (for lesson 03's count_copied_lines).
  const std::unordered_set<std::string>& lines() const { return lines_; }
  std::size_t size() const { return lines_.size(); }

 private:
  std::unordered_map<std::string, std::vector<std::string>> endings_;
  std::unordered_set<std::string> lines_;  // distinct lines
};

}  // namespace tang
