#include "13_cache_budget/dropping_cache.hpp"

#include <algorithm>

#include "13_cache_budget/exercise/positions_to_keep.hpp"  // exercise 13
#include "errors.hpp"
#include "ops.hpp"

namespace tang {

std::string KeepRule::name() const {
  return kind == kWindow ? "window" : kind == kSinks ? "sinks" : "heavy";
}

KeepRule::Kind parse_keep_rule(const std::string& text) {
  if (text == "window") return KeepRule::kWindow;
  if (text == "sinks") return KeepRule::kSinks;
  if (text == "heavy") return KeepRule::kHeavy;
  throw UserError("unknown rule '" + text + "': use window, sinks or heavy");
}

DroppingCache::DroppingCache(const GPTConfig& config, KeepRule rule)
    : rule_(rule),
      L_(config.n_layer),
      T_max_(config.block_size),
      C_(config.n_embd),
      NH_(config.n_head),
      k_(L_ * T_max_ * C_, 0.0f),
      v_(L_ * T_max_ * C_, 0.0f),
      received_(T_max_, 0.0f),
      weights_(NH_ * T_max_),
      first_share_(L_ * NH_, 0.0),
      first_count_(L_, 0) {
  require_multi_head(config, "lesson 13's dropping cache");
  // the newest position must always stay: the window needs at least one place
  if (rule.budget <= rule.sinks() || rule.window() == 0)
    throw UserError("a budget of " + std::to_string(rule.budget) + " positions is too small for " +
                    rule.name() + ": at least " +
                    std::to_string(rule.sinks() + (rule.kind == KeepRule::kHeavy ? 2 : 1)));
  kept_.reserve(T_max_);
  rows_.reserve(T_max_);
}

void DroppingCache::attend(std::size_t l, float* out, const float* rows, std::size_t T,
                           const GPT&) {
  if (l == 0 && !kept_.empty() && kept_.back() >= length) {  // taken back to `length`
    // (a predictor starting again: to 0); what was dropped before stays dropped
    while (!kept_.empty() && kept_.back() >= length) kept_.pop_back();
    std::fill(received_.begin() + static_cast<std::ptrdiff_t>(length), received_.end(), 0.0f);
  }
  float* keys = &k_[l * T_max_ * C_];  // (T_max, C)
  float* values = &v_[l * T_max_ * C_];
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t p = length + t;      // this query's position
    const float* row = rows + t * 3 * C_;  // q | k | v
    std::copy(row + C_, row + 2 * C_, keys + p * C_);
    std::copy(row + 2 * C_, row + 3 * C_, values + p * C_);
    rows_.assign(kept_.begin(), kept_.end());  // what is kept, then the new ones to here
    for (std::size_t q = length; q <= p; ++q) rows_.push_back(q);
    const std::size_t n = rows_.size();
    ops::attend_rows(out + t * C_, weights_.data(), row, keys, values, rows_.data(), n, C_, NH_);
    for (std::size_t h = 0; h < NH_; ++h) {
      for (std::size_t j = 0; j < n; ++j) {
        const float w = weights_[h * n + j];
        received_[rows_[j]] += w;
        if (p >= kFirstShareFrom && rows_[j] < kSinkPositions) first_share_[l * NH_ + h] += w;
      }
    }
    first_count_[l] += p >= kFirstShareFrom;
  }
}

void DroppingCache::hold(std::span<const TokenId> tokens) {
  for (std::size_t t = 0; t < tokens.size(); ++t) kept_.push_back(length + t);
  length += tokens.size();
  if (kept_.size() <= rule_.budget) return;
  std::vector<float> drawn(kept_.size());  // what each kept position has drawn
  for (std::size_t i = 0; i < kept_.size(); ++i) drawn[i] = received_[kept_[i]];
  const std::vector<std::size_t> keep =
      positions_to_keep(drawn, rule_.budget, rule_.sinks(), rule_.window());
  std::vector<std::size_t> kept;
  kept.reserve(keep.size());
  for (std::size_t i : keep) kept.push_back(kept_.at(i));
  kept_ = std::move(kept);
}

double DroppingCache::first_positions_share(std::size_t l, std::size_t h) const {
  return first_count_[l] == 0 ? 0.0
                              : first_share_[l * NH_ + h] / static_cast<double>(first_count_[l]);
}

}  // namespace tang
