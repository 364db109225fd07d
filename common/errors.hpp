// errors.hpp: the exception types for bad input from a user.
//
// A UserError carries one line that says what is wrong and what to do about
// it. Programs catch it in main(), print the line to stderr and exit with a
// non-zero status; they never crash on input a learner can type or a file a
// learner can break.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace tang {

// `text` with what would not show as itself escaped: line breaks and other
// control characters ("\\n", "\\x1b"), bytes that are not UTF-8 ("\\xff"), and
// invisible or layout-changing characters such as zero-width joiners,
// bidirectional controls and combining marks ("\\u{202E}").
std::string show_invisible(std::string_view text);

// How a character looks in a table or a note: the newline as ⏎, invisible
// characters escaped as show_invisible does.
std::string printable(const std::string& character);

// The same, for an error message: it stays one line whatever file or prompt it quotes.
std::string one_line(const std::string& text);

struct UserError : std::runtime_error {
  explicit UserError(const std::string& message) : std::runtime_error(one_line(message)) {}
};

// A flag whose value cannot work: exit status 2, like a flag CLI11 rejects.
struct BadOption : UserError {
  using UserError::UserError;
};

// Thrown by an exercise stub the learner has not completed yet. The message is
// "not implemented yet: see exercise NN (<the file to edit>)"; a lesson prints
// it in place of the sections that need that exercise and runs the others.
struct NotImplemented : std::logic_error {
  using std::logic_error::logic_error;
};

}  // namespace tang
