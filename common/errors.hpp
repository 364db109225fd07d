// errors.hpp: the one exception type for bad input from a user.
//
// A UserError carries one line that says what is wrong and what to do about
// it. Programs catch it in main(), print the line to stderr and exit with a
// non-zero status; they never crash on input a learner can type or a file a
// learner can break.
#pragma once

#include <stdexcept>
#include <string>

namespace tang {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tang
