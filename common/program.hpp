// program.hpp: how every executable of the course starts and fails.
//
// run_program(argc, argv, app, body) parses the command line with CLI11 and
// runs body(). Whatever goes wrong on the way (a bad flag, a missing file, a
// character the model does not know) ends as ONE line on stderr, starting
// with "error:", and exit status 1 (2 for bad flags: CLI11's own checks and BadOption). --help
// prints the help.
#pragma once

#include <functional>

// CLI11 is declared here only; the files that build or parse the flags include
// <CLI/CLI.hpp> themselves (it costs seconds to compile, in every file that includes it).
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tang {

int run_program(int argc, char** argv, CLI::App& app, const std::function<int()>& body);

}  // namespace tang
