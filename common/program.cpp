#include "program.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>

#include "errors.hpp"

namespace tang {

int run_program(int argc, char** argv, CLI::App& app, const std::function<int()>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << " (run " << app.get_name() << " --help for the flags)\n";
    return 2;
  }
  try {
    return body();
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

}  // namespace tang
