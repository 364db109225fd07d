#include "beam_step_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

#include "lesson.hpp"  // printable

namespace tang {

namespace {

// Scores this close (relative to their size, at least 1) count as equal: a
// float sum of one beam's ~60 log-probabilities rounds by a few parts in 10^7.
constexpr double kRoundingShare = 1e-6;

bool close(double a, double b) {
  return std::fabs(a - b) <= kRoundingShare * std::max(1.0, std::fabs(b));
}

std::string describe(const Tokenizer& tokenizer, const BeamChoice& c) {
  char text[96];
  std::snprintf(text, sizeof text, "%s after beam %zu (score %.6f)",
                printable(tokenizer.character(c.token)).c_str(), c.beam + 1, c.score);
  return text;
}

}  // namespace

BeamStepCheck::BeamStepCheck(const Tokenizer& tokenizer, std::ostream& report, bool enabled)
    : tokenizer_(tokenizer), report_(report), enabled_(enabled) {}

void BeamStepCheck::compare(std::size_t step, std::span<const double> scores,
                            std::span<const std::vector<float>> log_probs,
                            std::span<const LogitMask> allowed, std::size_t width,
                            const std::vector<BeamChoice>& yours) {
  if (!enabled_ || reported_) return;
  const std::vector<BeamChoice> theirs = reference::beam_step(scores, log_probs, allowed, width);
  std::size_t k = 0;  // the first place where the lists differ
  while (k < std::min(yours.size(), theirs.size()) && yours[k].beam == theirs[k].beam &&
         yours[k].token == theirs[k].token && close(yours[k].score, theirs[k].score)) {
    ++k;
  }
  if (k == yours.size() && k == theirs.size()) return;
  reported_ = true;

  // Only rounding: as many extensions, each a real one (an allowed character of
  // an existing beam, kept once, its score what the contract says), scoring
  // place by place what the reference's do.
  bool rounding = yours.size() == theirs.size();
  std::set<std::pair<std::size_t, TokenId>> seen;
  for (std::size_t i = 0; rounding && i < yours.size(); ++i) {
    const BeamChoice& c = yours[i];
    rounding = c.beam < scores.size() && c.token >= 0 &&
               static_cast<std::size_t>(c.token) < log_probs[c.beam].size() &&
               allowed[c.beam].allows(c.token) && seen.insert({c.beam, c.token}).second;
    if (!rounding) break;
    const double exact =
        scores[c.beam] + static_cast<double>(log_probs[c.beam][static_cast<std::size_t>(c.token)]);
    rounding = close(c.score, exact) && close(exact, theirs[i].score);
  }

  char head[96];
  std::snprintf(head, sizeof head, "note: step %zu of the beam search, extension %zu: ", step + 1,
                k + 1);
  report_ << head << "yours "
          << (k < yours.size() ? describe(tokenizer_, yours[k]) : std::string("missing"))
          << ", the reference solution's "
          << (k < theirs.size() ? describe(tokenizer_, theirs[k]) : std::string("missing"))
          << " (exercise 07b), on the same scores; ";
  if (rounding) {
    report_ << "only rounding: every extension you kept is allowed and scores what the "
               "reference's in its place does, within a millionth\n";
  } else {
    report_ << "your beam_step disagrees with the reference there: "
               "ctest --preset learner -L '^exercise_07b$'\n";
  }
}

}  // namespace tang
