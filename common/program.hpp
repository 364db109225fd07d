// program.hpp: how every executable of the course starts and fails.
//
// run_program(argc, argv, app, body) parses the command line with CLI11 and
// runs body(). Whatever goes wrong on the way (a bad flag, a missing file, a
// character the model does not know) ends as ONE line on stderr, starting
// with "error:", and exit status 1 (2 for bad flags: CLI11's own checks and BadOption). --help
// prints the help.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

// CLI11 is only declared here: <CLI/CLI.hpp> costs seconds in every file that
// includes it, so only the files that build or parse flags do.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tang {

int run_program(int argc, char** argv, CLI::App& app, const std::function<int()>& body);

// A seed as every program of the course reads it: decimal digits only, in
// [0, 2^64-1] (no sign, no wrap-around, no octal "010"). Throws BadOption.
std::uint64_t parse_seed(const std::string& flag, const std::string& text);

}  // namespace tang
