#include "reference_check.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lesson.hpp"  // printable

namespace tang {

bool runs_learner_code() {
  return TANG_RUNS_SOLUTIONS == 0;
}

namespace {

constexpr std::uint64_t kMultiplier = 0x2545F4914F6CDD1Dull;  // rng.hpp's xorshift64*
constexpr float kCoinStep = 1.0f / 16777216.0f;               // 2^-24: one coin apart
// How far a coin may move for a difference to count as rounding. A float running sum
// over the 7,129 probabilities rounds at each addition (by up to 3e-8 once the total
// nears 1), so near the end of the walk two correct sums in other orders can place a
// border 1e-5 apart; 1e-4 leaves room, and a real mistake moves borders much further.
constexpr float kRoundingReach = 1e-4f;
const int kRoundingSteps = static_cast<int>(std::ceil(kRoundingReach / kCoinStep));

// x such that x * m == 1 (mod 2^64), m odd: Newton's iteration doubles the correct
// low bits each time (3 -> 6 -> 12 -> 24 -> 48 -> 96).
std::uint64_t inverse_mod_2_64(std::uint64_t m) {
  std::uint64_t x = m;  // right in the lowest 3 bits for any odd m
  for (int i = 0; i < 5; ++i) x *= 2 - m * x;
  return x;
}

// Undoes x ^= x >> shift (or << shift): the top (bottom) bits are unchanged, and
// each pass recovers `shift` more of the rest.
std::uint64_t undo_xor_right(std::uint64_t y, int shift) {
  std::uint64_t x = y;
  for (int done = shift; done < 64; done += shift) x = y ^ (x >> shift);
  return x;
}
std::uint64_t undo_xor_left(std::uint64_t y, int shift) {
  std::uint64_t x = y;
  for (int done = shift; done < 64; done += shift) x = y ^ (x << shift);
  return x;
}

// "exercise 02", "exercises 02 and 03"
std::string exercise_names(const std::vector<std::string>& ids) {
  std::string text = ids.size() == 1 ? "exercise " : "exercises ";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) text += i + 1 == ids.size() ? " and " : ", ";
    text += ids[i];
  }
  return text;
}

// ctest's label regex for their tests: "^exercise_(02|03)$"
std::string test_labels(const std::vector<std::string>& ids) {
  std::string alternatives;
  for (const std::string& id : ids) alternatives += (alternatives.empty() ? "" : "|") + id;
  return "^exercise_(" + alternatives + ")$";
}

struct PoemState {
  bool reported = false;  // one note per poem: the first difference
};

}  // namespace

Rng rng_whose_next_coin_is(float coin) {
  // uniform() returns the top 24 bits of next_u64(); next_u64() returns
  // xorshift(state) * kMultiplier. Choose the output, then run both steps backwards.
  const auto top24 = static_cast<std::uint64_t>(coin * 16777216.0f);
  std::uint64_t x = (top24 << 40) * inverse_mod_2_64(kMultiplier);  // xorshift(state)
  x = undo_xor_right(x, 27);
  x = undo_xor_left(x, 25);
  x = undo_xor_right(x, 12);
  Rng rng(0);
  rng.set_state(x);
  return rng;
}

Picker checked_against_reference(Picker yours, Picker reference, const Tokenizer& tokenizer,
                                 std::vector<std::string> exercises, std::ostream& report,
                                 bool enabled) {
  if (!enabled) return yours;
  auto poem = std::make_shared<PoemState>();
  return [yours = std::move(yours), reference = std::move(reference), &tokenizer,
          exercises = std::move(exercises), &report,
          poem](std::span<float> logits, std::size_t written, Rng& rng) {
    if (written == 0) poem->reported = false;  // a new poem
    if (poem->reported) return yours(logits, written, rng);

    const std::vector<float> same_logits(logits.begin(), logits.end());
    const Rng before = rng;
    std::vector<float> copy = same_logits;
    Rng same_rng = before;
    const TokenId theirs = reference(copy, written, same_rng);
    const TokenId mine = yours(logits, written, rng);
    if (mine == theirs) return mine;

    poem->reported = true;
    // Is there a coin within kRoundingReach of the one drawn for which theirs is yours?
    Rng peek = before;
    const float coin = peek.uniform();
    float nudge = 0.0f;
    for (int step = 1; step <= kRoundingSteps && nudge == 0.0f; ++step) {
      for (const float sign : {-1.0f, 1.0f}) {
        const float moved = coin + sign * static_cast<float>(step) * kCoinStep;
        if (moved < 0.0f || moved >= 1.0f) continue;
        copy = same_logits;
        Rng retry = rng_whose_next_coin_is(moved);
        if (reference(copy, written, retry) == mine) {
          nudge = static_cast<float>(step) * kCoinStep;
          break;
        }
      }
    }
    const std::string your_char = printable(tokenizer.character(mine));
    char coin_text[48];
    std::snprintf(coin_text, sizeof coin_text, "%.6f", static_cast<double>(coin));
    report << "note: new character " << written + 1 << ": yours " << your_char
           << ", the reference solutions' " << printable(tokenizer.character(theirs)) << " ("
           << exercise_names(exercises) << "), on the same logits; ";
    if (nudge > 0.0f) {
      char nudge_text[32];
      std::snprintf(nudge_text, sizeof nudge_text, "%.1e", static_cast<double>(nudge));
      report << "only rounding: the coin " << coin_text << " moved by " << nudge_text
             << " makes theirs " << your_char << " too\n";
    } else {
      report << "yours disagrees with theirs (no coin within 1e-04 of " << coin_text
             << " makes theirs " << your_char << "): ctest --preset learner -L '"
             << test_labels(exercises) << "'\n";
    }
    return mine;
  };
}

}  // namespace tang
