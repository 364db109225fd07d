#include "trace.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>

#include "number_text.hpp"
#include "sampling.hpp"

namespace tang {

namespace {

std::string percent(double share) {
  return fixed(100.0 * share, 1) + "%";
}

std::string shown(const Tokenizer& tokenizer, TokenId id) {
  const std::string& c = tokenizer.character(id);
  return c == "\n" ? "⏎" : c;
}

// Records a filter: the characters still kept until now that `now` shows as `removed_value`.
void cut(StepRecord& r, const std::string& filter, std::span<const float> now,
         float removed_value) {
  StepRecord::Cut cut{filter, 0, 0.0};
  for (std::size_t i = 0; i < now.size() && i < r.kept.size(); ++i) {
    if (r.kept[i] && now[i] == removed_value) {
      r.kept[i] = false;
      cut.removed += 1;
      cut.share += r.before[i];
    }
  }
  r.cuts.push_back(cut);
}

}  // namespace

void StepRecord::begin(std::span<const float> logits, float temperature) {
  before.assign(logits.begin(), logits.end());
  const float max = *std::max_element(before.begin(), before.end());
  // Greedy (T = 0) shows the model's own distribution (T = 1) next to its pick.
  const float t = temperature > 0.0f ? temperature : 1.0f;
  for (float& z : before) z = (z - max) / t;
  softmax_in_place(before);
  kept.assign(before.size(), true);
}

void StepRecord::removed_logits(const std::string& filter, std::span<const float> logits) {
  cut(*this, filter, logits, -std::numeric_limits<float>::infinity());
}

void StepRecord::removed_probabilities(const std::string& filter,
                                       std::span<const float> probabilities) {
  cut(*this, filter, probabilities, 0.0f);
}

std::string step_line(const StepRecord& r, std::size_t step, const Tokenizer& tokenizer) {
  char text[48];
  std::snprintf(text, sizeof text, "      step %3zu  top 5:", step);
  std::string line = text;
  std::vector<TokenId> ids(r.before.size());
  std::iota(ids.begin(), ids.end(), 0);
  const std::size_t count = std::min<std::size_t>(5, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count), ids.end(),
                    [&](TokenId a, TokenId b) {
                      const float pa = r.before[static_cast<std::size_t>(a)];
                      const float pb = r.before[static_cast<std::size_t>(b)];
                      return pa != pb ? pa > pb : a < b;
                    });
  // (appended piece by piece: GCC 12 warns falsely on one long sum of strings)
  for (std::size_t k = 0; k < count; ++k) {
    line.append(" ").append(shown(tokenizer, ids[k])).append(" ");
    line.append(percent(r.before[static_cast<std::size_t>(ids[k])]));
  }
  for (const StepRecord::Cut& cut : r.cuts) {
    line.append("  | ").append(cut.filter).append(" removed ");
    line.append(std::to_string(cut.removed)).append(" (").append(percent(cut.share)).append(")");
  }
  if (r.coin >= 0.0f) {
    std::snprintf(text, sizeof text, "  | coin %.4f", static_cast<double>(r.coin));
    line.append(text);
  } else {
    line.append("  | greedy");
  }
  if (r.chosen >= 0) {
    line.append(" -> ").append(shown(tokenizer, r.chosen)).append(" (");
    line.append(percent(r.before[static_cast<std::size_t>(r.chosen)]))
        .append(" before the filters)");
  }
  return line + "\n";
}

}  // namespace tang
