#include "exercise_code.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <set>

#include "errors.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

constexpr std::array<std::string_view, 20> kExercises{
    "02",  "03",  "03b", "05",  "06a", "06b", "06c", "06d", "07a", "07b",
    "08a", "08b", "09a", "09b", "10a", "10b", "11a", "11b", "12",  "13"};

// What --yours chose; one program, one choice, made before any work starts.
struct Choice {
  std::set<std::string, std::less<>> yours;
  bool compare = true;
  const Tokenizer* names = nullptr;
  std::ostream* report = &std::cerr;
};
Choice& choice() {
  static Choice c;
  return c;
}

// Every switch that has run yet, for the summary (constructed from many threads in lesson 11).
struct Switches {
  std::mutex mutex;
  std::vector<const ExerciseSwitch*> all;
};
Switches& switches() {
  static Switches s;
  return s;
}

// The exercise ids `keep` takes, in lesson order, separated by commas.
template <class Keep>
std::string ids_where(const Keep& keep) {
  std::string ids;
  for (std::string_view id : kExercises) {
    if (keep(id)) ids += (ids.empty() ? "" : ", ") + std::string(id);
  }
  return ids;
}

}  // namespace

void choose_exercise_code(const std::string& yours, bool compare, std::ostream* report) {
  Choice c;
  c.compare = compare;
  c.report = report ? report : &std::cerr;
  if (yours == "all") c.yours.insert(kExercises.begin(), kExercises.end());
  for (std::size_t from = 0; !yours.empty() && yours != "all" && from <= yours.size();) {
    const std::size_t comma = std::min(yours.find(',', from), yours.size());
    const std::string id = yours.substr(from, comma - from);  // "" between two commas
    if (std::find(kExercises.begin(), kExercises.end(), id) == kExercises.end()) {
      throw BadOption("--yours " + yours + ": '" + id +
                      "' is not an exercise; give 'all' or some of " +
                      ids_where([](std::string_view) { return true; }) + " separated by commas");
    }
    c.yours.insert(id);
    from = comma + 1;
  }
  choice() = std::move(c);
}

void name_characters_with(const Tokenizer* names) {
  choice().names = names;
}

bool runs_yours(std::string_view exercise) {
  return choice().yours.count(exercise) > 0;
}

std::span<const std::string_view> exercise_ids() {
  return kExercises;
}

std::string exercise_code_line() {
  const auto& yours = choice().yours;
  if (yours.empty()) {
    return "exercise code: the reference solutions (lessons/*/solution/); --yours runs yours";
  }
  const std::string ids = ids_where([&](std::string_view id) { return yours.count(id) > 0; });
  return "exercise code: YOURS for " + ids +
         " (lessons/*/exercise/), checked against the reference solutions";
}

std::string character_name(TokenId id) {
  const Tokenizer* names = choice().names;
  if (names == nullptr || id < 0 || static_cast<std::size_t>(id) >= names->size()) {
    return "id " + std::to_string(id);
  }
  return printable(names->character(id));
}

ExerciseSwitch::ExerciseSwitch(std::string_view exercise, std::string_view function)
    : exercise_(exercise), function_(function) {
  Switches& s = switches();
  const std::lock_guard lock(s.mutex);
  s.all.push_back(this);
}

std::string ExerciseSwitch::summary() const {
  const std::size_t calls = calls_, matched = matched_, differed_at = differed_at_;
  std::string line = "exercise " + std::string(exercise_) + " (" + std::string(function_) + "): ";
  if (calls == 0) return line + "yours did not run";
  if (!choice().compare) return line + "yours ran " + counted(calls, "call") + ", not compared";
  if (differed_at != 0) {
    return line + "yours matched the reference on " + counted(matched, "call") +
           ", then differed at call " + std::to_string(differed_at) +
           " (the note on stderr); the run went on with yours, " + counted(calls, "call") +
           " in all";
  }
  if (matched == calls) {
    return line + "yours matched the reference on " +
           (calls == 1 ? std::string("its one call") : "all " + counted(calls, "call"));
  }
  return line + "yours matched the reference on " + std::to_string(matched) + " of " +
         counted(calls, "call") + "; " + std::to_string(calls - matched) +
         " stopped with an error (printed where it happened)";
}

std::string exercise_summary() {
  const auto& yours = choice().yours;
  if (yours.empty()) return "";
  Switches& s = switches();
  const std::lock_guard lock(s.mutex);
  std::string text = "\nyour code against the reference solutions:\n";
  for (std::string_view id : kExercises) {
    if (!yours.count(id)) continue;
    bool ran = false;
    for (const ExerciseSwitch* one : s.all) {
      if (one->exercise() != id) continue;
      text += one->summary() + "\n";
      ran = true;
    }
    if (!ran) {
      text +=
          "exercise " + std::string(id) + ": yours did not run (nothing in this run called it)\n";
    }
  }
  return text;
}

bool ExerciseSwitch::compares() {
  ++calls_;
  return choice().compare && !reported_;
}

void ExerciseSwitch::check(const Verdict& verdict, const std::string& inputs) {
  if (verdict.kind == Verdict::kSame) {
    ++matched_;
    return;
  }
  if (reported_.exchange(true)) return;
  differed_at_ = calls_.load();
  const std::string exercise(exercise_);
  *choice().report << "note: exercise " << exercise << " (" << function_ << ", call "
                   << calls_.load() << " of the run" << (inputs.empty() ? "" : ": " + inputs)
                   << "): "
                   << (verdict.kind == Verdict::kRounding
                           ? "yours and the reference solution differ only by rounding ("
                           : "yours and the reference solution disagree (")
                   << verdict.detail << "); your tests: ctest --preset yours -L '^yours_"
                   << exercise << "$'\n";
}

Verdict compare_floats(std::span<const float> yours, std::span<const float> theirs,
                       float rounding) {
  if (yours.size() != theirs.size()) {
    return {Verdict::kDisagrees,
            std::to_string(yours.size()) + " values against " + std::to_string(theirs.size())};
  }
  double largest = 0.0;
  std::size_t where = 0;
  bool same_bits = true;
  for (std::size_t i = 0; i < yours.size(); ++i) {
    same_bits = same_bits &&
                std::bit_cast<std::uint32_t>(yours[i]) == std::bit_cast<std::uint32_t>(theirs[i]);
    const double gap = std::fabs(static_cast<double>(yours[i]) - static_cast<double>(theirs[i]));
    if (!(gap <= largest)) {
      largest = std::isnan(gap) ? INFINITY : gap;  // NaN: worst
      where = i;
    }
  }
  if (same_bits) return {};
  std::string yours_text = scientific(yours[where]), theirs_text = scientific(theirs[where]);
  if (yours_text == theirs_text) {  // 3 digits hide the gap: 9 tell any two floats apart
    yours_text = scientific(yours[where], 9);
    theirs_text = scientific(theirs[where], 9);
  }
  const std::string at =
      "value " + std::to_string(where) + ": yours " + yours_text + ", theirs " + theirs_text;
  if (largest <= static_cast<double>(rounding)) {
    return {Verdict::kRounding, "up to " + scientific(largest) + " apart, at " + at};
  }
  return {Verdict::kDisagrees, at};
}

Verdict compare_exactly(bool equal, const std::string& what) {
  if (equal) return {};
  return {Verdict::kDisagrees, what};
}

Verdict compare_numbers(double yours, double theirs, double relative, int digits,
                        const std::string& what) {
  if (yours == theirs) return {};
  const bool rounding = std::fabs(yours - theirs) <= relative * std::fabs(theirs);
  return {rounding ? Verdict::kRounding : Verdict::kDisagrees,
          (what.empty() ? "" : what + ": ") + "yours " + fixed(yours, digits) + ", theirs " +
              fixed(theirs, digits)};
}

std::vector<std::vector<float>> ExerciseSwitch::copy_of(std::span<const Written> written) {
  std::vector<std::vector<float>> copies;
  for (const Written& w : written) copies.emplace_back(w.values.begin(), w.values.end());
  return copies;
}

void ExerciseSwitch::put_back(std::span<const Written> written,
                              const std::vector<std::vector<float>>& values) {
  for (std::size_t i = 0; i < written.size(); ++i)
    std::copy(values[i].begin(), values[i].end(), written[i].values.begin());
}

Verdict ExerciseSwitch::compare_written(std::span<const Written> written,
                                        const std::vector<std::vector<float>>& theirs) {
  for (std::size_t i = 0; i < written.size(); ++i) {
    Verdict verdict = compare_floats(written[i].values, theirs[i], written[i].rounding);
    if (verdict.kind == Verdict::kSame) continue;
    if (!written[i].name.empty()) verdict.detail = written[i].name + ", " + verdict.detail;
    return verdict;
  }
  return {};
}

}  // namespace tang
