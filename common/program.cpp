#include "program.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <new>

#include "errors.hpp"

namespace tang {

namespace {

// What a program printed must have reached stdout: a closed stdout or a full
// disk ends in an error and a non-zero status, never in a silent exit 0.
int with_output_checked(const CLI::App& app, int status) {
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
    std::cerr << "error: could not write the output of " << app.get_name()
              << " to stdout (closed, or the disk is full)\n";
    return status == 0 ? 1 : status;
  }
  return status;
}

}  // namespace

namespace {

// Every whole-number flag is read in decimal digits, as --seed is: CLI11 alone
// would take 0x10 as 16 and 0b11 as 3.
void require_decimal_digits(CLI::App& app) {
  const CLI::Validator decimal(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        return digits ? "" : "'" + text + "' is not a whole number in decimal digits";
      },
      "", "decimal digits");
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type.rfind("UINT", 0) == 0 || type.rfind("INT", 0) == 0) option->check(decimal);
  }
}

}  // namespace

int run_program(int argc, char** argv, CLI::App& app, const std::function<int()>& body) {
  require_decimal_digits(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return with_output_checked(app, 0);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << " (run " << app.get_name() << " --help for the flags)\n";
    return 2;
  }
  try {
    return with_output_checked(app, body());
  } catch (const BadOption& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const UserError& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const NotImplemented& e) {  // an exercise stub of the learner build
    std::cerr << "error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory: this model or batch needs more memory than is free\n";
  } catch (const std::exception& e) {
    std::cerr << "error: internal problem: " << e.what() << " (please report it)\n";
  }
  return 1;
}

std::uint64_t parse_seed(const std::string& flag, const std::string& s) {
  // Decimal digits only: strtoull would wrap "-1", clamp 2^64 and read "010" as octal.
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), seed);
  const bool digits_only = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  const bool leading_zero = s.size() > 1 && s[0] == '0';
  if (!digits_only || leading_zero || error != std::errc() || end != s.data() + s.size()) {
    throw BadOption(flag + " " + s + ": must be a whole number in [0, 2^64-1], in decimal digits");
  }
  return seed;
}

}  // namespace tang
