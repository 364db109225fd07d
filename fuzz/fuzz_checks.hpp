// fuzz_checks.hpp: what both fuzzers treat as a finding, besides crashes and
// sanitizer reports: an error message that is empty or longer than one line.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "errors.hpp"

namespace tang::fuzz {

[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "FINDING: %s: %s\n", what, detail.c_str());
  std::abort();
}

inline void check_one_line(const tang::UserError& e) {
  const std::string message = e.what();
  if (message.empty()) finding("empty UserError", "");
  if (message.find('\n') != std::string::npos || message.find('\r') != std::string::npos) {
    finding("UserError of more than one line", message);
  }
}

}  // namespace tang::fuzz
