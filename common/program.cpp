#include "program.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <regex>
#include <sstream>

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

// A bound in the course's words: 500, 0.9.
std::string number_text(double x) {
  if (x == std::floor(x) && std::abs(x) < 1e15) return std::to_string(static_cast<long long>(x));
  std::ostringstream out;
  out << x;
  return out.str();
}

// Every whole-number flag is read in decimal digits, as --seed is: CLI11 alone
// would take 0x10 as 16 and 0b11 as 3.
bool decimal_digits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// The bounds of a CLI11 range check, read back from what CLI::Range writes in its
// description ("UINT in [2 - 500]", "FLOAT in [0 - 10]"), or from what CLI11's
// PositiveNumber and NonNegativeNumber write there ("POSITIVE", "NONNEGATIVE").
struct Bounds {
  bool whole = false;  // a whole number (INT, UINT), or any number (FLOAT)
  double low = 0.0, high = 0.0;
};
std::optional<Bounds> bounds_of(const CLI::Validator& check) {
  constexpr double kLargest = std::numeric_limits<double>::max();
  // CLI11 passes their names as descriptions (Range's third argument)
  const std::string description = check.get_description();
  if (description == "POSITIVE") return Bounds{false, std::numeric_limits<double>::min(), kLargest};
  if (description == "NONNEGATIVE") return Bounds{false, 0.0, kLargest};
  static const std::regex range(R"(^(\w+) in \[(\S+) - (\S+)\]$)");
  std::smatch m;
  if (!std::regex_match(description, m, range)) return std::nullopt;
  const std::string type = m[1];
  return Bounds{type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0, std::stod(m[2]),
                std::stod(m[3])};
}

// What a flag within `b` takes, as the help texts say it: "a whole number in [2, 500],
// in decimal digits", "a number in (0, 1]" (a lowest bound of 1e-06 or less, as --top-p's),
// "a number above 0".
std::string what_is_taken(const Bounds& b) {
  const bool above_zero = b.low > 0.0 && b.low <= 1e-6;
  if (b.high == std::numeric_limits<double>::max())
    return above_zero ? "a number above 0" : "a number of at least " + number_text(b.low);
  const std::string range =
      (above_zero ? "(0" : "[" + number_text(b.low)) + ", " + number_text(b.high) + "]";
  return b.whole ? "a whole number in " + range + ", in decimal digits" : "a number in " + range;
}

// Whether `text` is a value within `b`: a whole number in decimal digits, or a
// finite number.
bool within(const std::string& text, const Bounds& b) {
  double value = 0.0;
  if (b.whole) {
    std::uint64_t whole = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), whole);
    if (!decimal_digits(text) || error != std::errc() || end != text.data() + text.size())
      return false;
    value = static_cast<double>(whole);
  } else {
    const char* begin = text.c_str();
    char* end = nullptr;
    value = std::strtod(begin, &end);
    if (text.empty() || end != begin + text.size() || !std::isfinite(value)) return false;
  }
  return value >= b.low && value <= b.high;
}

// A flag's bad value ends as one line in the course's words, as --seed's does:
// "--budget-texts 0: must be a whole number in [2, 500], in decimal digits" (CLI11's
// range check would say "Value 0 not in range 2 to 500"). Each range check of each
// option is given that message, with the same bounds; every other whole-number
// flag is checked for decimal digits. The checks throw BadOption out of
// app.parse() (CLI11 turns only its own ValidationError into its message).
void check_values_in_the_course_words(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string flag = option->get_name();
    const auto refuse = [flag](const std::string& text, const std::string& taken) {
      throw BadOption(flag + " " + (text.empty() ? "''" : text) + ": must be " + taken);
    };
    bool ranged = false;
    for (int i = 0;; ++i) {
      CLI::Validator* check = nullptr;
      try {
        check = option->get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      const std::optional<Bounds> bounds = bounds_of(*check);
      if (!bounds) continue;
      check->operation([b = *bounds, refuse](std::string& text) {
        if (!within(text, b)) refuse(text, what_is_taken(b));
        return std::string();
      });
      ranged = true;
    }
    const std::string type = option->get_type_name();
    const bool whole = type.rfind("UINT", 0) == 0 || type.rfind("INT", 0) == 0;
    if (whole && !ranged) {
      option->check(CLI::Validator(
          [refuse](std::string& text) {
            if (!decimal_digits(text)) refuse(text, "a whole number in decimal digits");
            return std::string();
          },
          "", "decimal digits"));
    }
  }
}

}  // namespace

int run_program(int argc, char** argv, CLI::App& app, const std::function<int()>& body) {
  check_values_in_the_course_words(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return with_output_checked(app, 0);
  } catch (const CLI::ArgumentMismatch& e) {  // "--length: 1 required UINT:... missing"
    const std::string what = e.what(), flag = what.substr(0, what.find(':'));
    const bool missing = what.find("missing") != std::string::npos;
    std::cerr << "error: " << flag
              << (missing ? " needs a value" : " is given more than once: give it once") << " (run "
              << app.get_name() << " --help for the flags)\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << " (run " << app.get_name() << " --help for the flags)\n";
    return 2;
  } catch (const BadOption& e) {  // a flag's value (check_values_in_the_course_words)
    std::cerr << "error: " << e.what() << "\n";
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
