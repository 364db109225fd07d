// run_command.hpp: for the tests that run the course's programs as a learner
// does, through the shell, and look at what they print and how they exit.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tang_tests {

struct Outcome {
  int status = -1;  // exit status; 128 + signal when killed by one
  std::string out;  // stdout
  std::string err;  // stderr
};

// One shell word: 'it''s' quoted so that the shell passes it through unchanged.
inline std::string shell_quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// `exe` and its arguments, each quoted.
inline std::string command_line(const std::string& exe, const std::vector<std::string>& args) {
  std::string command = shell_quote(exe);
  for (const std::string& a : args) {
    command += ' ';
    command += shell_quote(a);
  }
  return command;
}

// Runs a shell command line with stdin from /dev/null (a command that redirects
// its own stdin wraps itself in "( ... )"), stdout and stderr captured through
// two files in `scratch`.
inline Outcome run_command(const std::string& command, const std::filesystem::path& scratch) {
  const std::filesystem::path out = scratch / "out.txt", err = scratch / "err.txt";
  std::string line = command;
  line += " >";  // one piece at a time: GCC 12 warns (-Wrestrict) about " >" + ...
  line += shell_quote(out.string());
  line += " 2>";
  line += shell_quote(err.string());
  line += " </dev/null";
  const int status = std::system(line.c_str());
  Outcome r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace tang_tests
