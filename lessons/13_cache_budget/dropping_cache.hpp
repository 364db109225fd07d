// dropping_cache.hpp: a cache that holds at most `budget` positions.
//
// Our model learned its positions (a table, wpe): a key keeps the position it
// was computed at, so a cache can drop positions but cannot shift the rest
// down. Within the context, a cache on a budget keeps some positions and lets
// the others go; the new query attends over what is kept (and itself). Which
// to keep (exercise 13, exercise/positions_to_keep.hpp):
//
//   window        the most recent `budget` positions
//   sinks         the first 4 positions (many heads rest their attention on
//                 them: StreamingLLM's "attention sinks", Xiao et al., 2023)
//                 and the most recent budget - 4
//   heavy         the most recent budget / 2, and the positions that have drawn
//                 the most attention so far, summed over heads, layers and
//                 queries (H2O's "heavy hitters", Zhang et al., 2023)
//
// DroppingCache answers lesson 06's four cache members, so lesson 06's
// forward_with_cache runs with it unchanged. With a budget of the whole
// context it is lesson 06's cache, bit for bit (its attention reads the kept
// rows with ops::attend_rows, the same sums as ops::attend).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "gpt.hpp"

namespace tang {

inline constexpr std::size_t kSinkPositions = 4;

struct KeepRule {
  enum Kind { kWindow, kSinks, kHeavy } kind = kWindow;
  std::size_t budget = 0;  // positions kept after each step

  std::string name() const;  // "window", "sinks", "heavy"
  // The first positions and the most recent ones always kept (exercise 13's arguments).
  std::size_t sinks() const { return kind == kSinks ? kSinkPositions : 0; }
  std::size_t window() const {
    return kind == kWindow ? budget : kind == kSinks ? budget - kSinkPositions : budget / 2;
  }
};

// "window", "sinks" or "heavy"; throws UserError naming the text and the choices.
KeepRule::Kind parse_keep_rule(const std::string& text);

class DroppingCache {
 public:
  DroppingCache(const GPTConfig& config, KeepRule rule);
  std::size_t length = 0;  // positions seen (kept or dropped)

  // What lesson 06's forward_with_cache asks of a cache (kv_cache.hpp).
  std::size_t positions() const { return length; }
  void check_room(std::size_t T, const GPTConfig& config) const {
    check_context(length, T, config);
  }
  // Layer l: stores the new keys and values at their positions; each new query
  // attends over the kept positions and the new ones up to itself.
  void attend(std::size_t l, float* out, const float* rows, std::size_t T, const GPT& model);
  // Then the new positions are kept too, and the rule drops what is over budget.
  void hold(std::span<const TokenId> tokens);

  const std::vector<std::size_t>& kept() const { return kept_; }  // increasing
  // Of layer l, head h: the share of its attention, over queries at positions
  // >= kFirstShareFrom, that fell on the first kSinkPositions positions.
  double first_positions_share(std::size_t l, std::size_t h) const;
  static constexpr std::size_t kFirstShareFrom = 16;

 private:
  KeepRule rule_;
  std::size_t L_, T_max_, C_, NH_;
  std::vector<float> k_, v_;              // (L, T_max, C) at their positions
  std::vector<std::size_t> kept_;         // kept positions < length, increasing
  std::vector<float> received_;           // (T_max) attention drawn so far
  std::vector<std::size_t> rows_;         // scratch: the positions a query reads
  std::vector<float> weights_;            // scratch: (NH, n)
  std::vector<double> first_share_;       // (L, NH) summed shares
  std::vector<std::size_t> first_count_;  // (L) queries counted
};

}  // namespace tang
