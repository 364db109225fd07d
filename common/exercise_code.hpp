// exercise_code.hpp: which code each exercise runs, and where yours first parts
// from the reference solution.
//
// Every build compiles each exercise twice: your file (lessons/NN_x/exercise/,
// namespace tang::mine) and the reference solution (solution/, tang::reference).
// The lessons call the exercise's switch, a function of the same name in
// namespace tang (e.g. tang::top_p_filter in lessons/03_topk_topp/top_p_switch.cpp),
// declared in the exercise's header with the type of yours (decltype(mine::f)).
// It runs the reference solution, or with --yours (every exercise) or --yours
// 03,06a (those) yours, and then the reference too, on copies of the same
// inputs, comparing the answers with the exercise's own comparator. At the first
// difference of each function it prints one note on stderr, e.g.
//
//   note: exercise 03 (top_p_filter, call 1 of the run: p 0.9): yours and the
//   reference solution differ only by rounding (up to 1.4e-09 apart, at value 2:
//   yours 0.00732500246, theirs 0.00732500385); your tests: ctest --preset yours
//   -L '^yours_03$'
//
// or "... disagree (<what differs>)". The lesson goes on with your answer, and
// ends with one line per exercise you chose (exercise_summary()): on how many
// calls yours matched the reference, or at which call it first differed.
#pragma once

#include <atomic>
#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer.hpp"

namespace tang {

// --yours: "" for none, "all", or exercise ids separated by commas ("03,06a").
// `compare`: run the reference beside yours (the lessons; the tests check yours
// alone). Throws BadOption naming an id that is not an exercise.
void choose_exercise_code(const std::string& yours, bool compare = true,
                          std::ostream* report = nullptr);  // null: std::cerr

// The model's tokenizer, so that notes show characters rather than ids.
void name_characters_with(const Tokenizer* names);
bool runs_yours(std::string_view exercise);

// What a lesson prints under its title: whose code it runs.
std::string exercise_code_line();
// What a lesson prints at its end with --yours: after a blank line and a heading,
// one line per function of each
// exercise chosen, "exercise 03 (top_p_filter): matched the reference on all 412
// calls", or where it first differed, or that it never ran. "" without --yours.
std::string exercise_summary();
// The exercises, in lesson order: "02", "03", "03b", ... "11b".
std::span<const std::string_view> exercise_ids();

// A comparator's answer: the same, different only by rounding, or disagreeing,
// with a few words on what differs ("up to 2.98e-08 apart", "yours 月, theirs 风").
struct Verdict {
  enum Kind { kSame, kRounding, kDisagrees } kind = kSame;
  std::string detail;
};

// Comparators. Floats: bit for bit the same, or every value within `rounding`
// (absolute) of the reference's, or not.
Verdict compare_floats(std::span<const float> yours, std::span<const float> theirs, float rounding);
// Values that are right or wrong (ids, counts, masks): `what` names the
// difference when they are not equal.
Verdict compare_exactly(bool equal, const std::string& what);
// Numbers: equal, within `relative` of the reference's (a sum in another order),
// or not; the detail shows both with `digits` decimals, after `what` if given.
Verdict compare_numbers(double yours, double theirs, double relative, int digits,
                        const std::string& what = "");
// A character as notes show it: 月, ⏎, or "id 12" without a tokenizer.
std::string character_name(TokenId id);

// The switch of one exercise function: whose code to run, and the one note.
class ExerciseSwitch {
 public:
  // Registers itself for exercise_summary(); each switch is a function's static.
  ExerciseSwitch(std::string_view exercise, std::string_view function);
  ExerciseSwitch(const ExerciseSwitch&) = delete;
  ExerciseSwitch& operator=(const ExerciseSwitch&) = delete;

  bool yours() const { return runs_yours(exercise_); }
  // Run the reference beside yours this call? (until the first note)
  bool compares();
  // After both ran: prints the note if `verdict` is the first difference.
  void check(const Verdict& verdict, const std::string& inputs);
  // This switch's line of exercise_summary().
  std::string summary() const;
  std::string_view exercise() const { return exercise_; }

  // The whole switch of a function whose answer is what it returns. `theirs`
  // and `yours` are its two versions (reference::f, mine::f), called with the
  // same `args`: the reference's answer, or yours, with the reference's beside
  // it until the first note. compare(yours, theirs) gives the Verdict;
  // `inputs()` names the call in the note.
  template <class F, class Compare, class Inputs, class... Args>
  auto returns(F* theirs, F* yours, const Compare& compare, const Inputs& inputs,
               const Args&... args) {
    if (!this->yours()) return theirs(args...);
    auto answer = yours(args...);
    if (compares()) check(compare(answer, theirs(args...)), inputs());
    return answer;
  }

  // A buffer a function writes (it may read it first, as a cache is), compared
  // with compare_floats within `rounding`; `name`, if any, starts the note's detail.
  struct Written {
    Written(std::span<float> v, float r = 0.0f, std::string n = "")
        : values(v), rounding(r), name(std::move(n)) {}
    std::span<float> values;
    float rounding;
    std::string name;
  };
  // The whole switch of a function whose answer is what it writes into
  // `written`. To compare, the reference's runs first on the same buffers; its
  // answer is kept and the buffers put back as they were; then yours runs, and
  // each buffer is compared with the reference's, in order.
  template <class F, class Inputs, class... Args>
  void writes(std::span<const Written> written, F* theirs, F* yours, const Inputs& inputs,
              const Args&... args) {
    if (!this->yours()) return theirs(args...);
    if (!compares()) return yours(args...);
    const std::vector<std::vector<float>> before = copy_of(written);
    theirs(args...);
    const std::vector<std::vector<float>> answer = copy_of(written);
    put_back(written, before);
    yours(args...);
    check(compare_written(written, answer), inputs());
  }

 private:
  static std::vector<std::vector<float>> copy_of(std::span<const Written> written);
  static void put_back(std::span<const Written> written,
                       const std::vector<std::vector<float>>& values);
  static Verdict compare_written(std::span<const Written> written,
                                 const std::vector<std::vector<float>>& theirs);

  std::string_view exercise_, function_;
  std::atomic<std::size_t> calls_ = 0;        // atomic: lesson 11's writers call from many threads
  std::atomic<std::size_t> matched_ = 0;      // compared calls that gave the reference's answer
  std::atomic<std::size_t> differed_at_ = 0;  // the call of the note; 0: none yet
  std::atomic<bool> reported_ = false;
};

}  // namespace tang
