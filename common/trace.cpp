#include "trace.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <ostream>

#include "sampling.hpp"

namespace tang {

namespace {

std::string percent(double share) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * share);
  return text;
}

std::string shown(const Tokenizer& tokenizer, TokenId id) {
  const std::string& c = tokenizer.character(id);
  return c == "\n" ? "⏎" : c;
}

}  // namespace

void StepTrace::reset() {
  reference_.clear();
  kept_.clear();
  cuts_.clear();
  coin_ = -1.0f;
  chosen_ = -1;
}

void StepTrace::start(std::span<const float> logits, float temperature) {
  reference_.assign(logits.begin(), logits.end());
  const float max = *std::max_element(reference_.begin(), reference_.end());
  // Greedy (T = 0) shows the model's own distribution (T = 1) next to its pick.
  const float t = temperature > 0.0f ? temperature : 1.0f;
  for (float& z : reference_) z = (z - max) / t;
  softmax_in_place(reference_);
  kept_.assign(reference_.size(), true);
}

void StepTrace::filtered_logits(const std::string& filter, std::span<const float> logits) {
  cut(filter, logits, -std::numeric_limits<float>::infinity());
}

void StepTrace::filtered_probabilities(const std::string& filter,
                                       std::span<const float> probabilities) {
  cut(filter, probabilities, 0.0f);
}

void StepTrace::cut(const std::string& filter, std::span<const float> now, float removed_value) {
  if (!started()) return;
  Cut cut{filter, 0, 0.0};
  for (std::size_t i = 0; i < now.size() && i < kept_.size(); ++i) {
    if (kept_[i] && now[i] == removed_value) {
      kept_[i] = false;
      cut.removed += 1;
      cut.share += reference_[i];
    }
  }
  cuts_.push_back(cut);
}

void StepTrace::drawn(float coin, TokenId chosen) {
  coin_ = coin;
  chosen_ = chosen;
}

void StepTrace::finish(std::size_t step) {
  std::ostream& out = out_;
  const Tokenizer& tokenizer = tokenizer_;
  char head[32];
  std::snprintf(head, sizeof head, "      step %3zu  top 5:", step);
  out << head;
  std::vector<TokenId> ids(reference_.size());
  std::iota(ids.begin(), ids.end(), 0);
  const std::size_t shown_count = std::min<std::size_t>(5, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(shown_count), ids.end(),
                    [&](TokenId a, TokenId b) {
                      const float pa = reference_[static_cast<std::size_t>(a)];
                      const float pb = reference_[static_cast<std::size_t>(b)];
                      return pa != pb ? pa > pb : a < b;
                    });
  for (std::size_t k = 0; k < shown_count; ++k) {
    out << " " << shown(tokenizer, ids[k]) << " "
        << percent(reference_[static_cast<std::size_t>(ids[k])]);
  }
  for (const Cut& cut : cuts_) {
    out << "  | " << cut.filter << " removed " << cut.removed << " (" << percent(cut.share) << ")";
  }
  char coin[32];
  if (coin_ >= 0.0f) {
    std::snprintf(coin, sizeof coin, "  | coin %.4f", static_cast<double>(coin_));
    out << coin;
  } else {
    out << "  | greedy";
  }
  if (chosen_ >= 0) {
    out << " -> " << shown(tokenizer, chosen_) << " ("
        << percent(reference_[static_cast<std::size_t>(chosen_)]) << " before the filters)";
  }
  out << "\n";
  reset();
}

}  // namespace tang
