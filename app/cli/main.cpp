// tcstudio-cli: the headless face of TC Studio. It links the compiler (and later the
// tuner) but no Qt: that is the proof the core is headless.
#include <iostream>
#include <string>
#include <vector>

#include "cli/CliArgs.h"
#include "cli/Commands.h"

#ifndef TCS_VERSION
#define TCS_VERSION "0.0.0"
#endif

static const char* kUsage = R"(usage: tcstudio-cli COMMAND [ARGS]

Commands:
  check FILE.tc     report every error and warning in a comprehension file
  shapes FILE.tc    print the shape of every output and the range of every index
  compile FILE.tc   compile a kernel and print its model, schedule, loops, C, LLVM IR or assembly
  run FILE.tc       run a kernel, compiled for the CPU or with the reference interpreter
  export FILE.tc    write a kernel as a bundle for your own C/C++ project (.h, .c, .o, CMake)
  options           list the mapping options: allowed values, defaults, meanings
  tune FILE.tc      search for the fastest mapping options, keeping every measurement
  cache             list, show, export and import what the tuner measured (the tuning cache)

Run 'tcstudio-cli COMMAND --help' for the options of a command.
  --version         print the version
)";

int main(int argc, char** argv) {
  using namespace tcs::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return kUsageError;
  }
  std::string cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return kSuccess;
  }
  if (cmd == "--version") {
    std::cout << "tcstudio-cli " << TCS_VERSION << "\n";
    return kSuccess;
  }
  try {
    if (cmd == "check") return command_check(rest);
    if (cmd == "shapes") return command_shapes(rest);
    if (cmd == "compile") return command_compile(rest);
    if (cmd == "run") return command_run(rest);
    if (cmd == "options") return command_options(rest);
    if (cmd == "export") return command_export(rest);
    if (cmd == "cache") return command_cache(rest);
    if (cmd == "tune") return command_tune(rest);
    if (cmd == "worker") return command_worker(rest);
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return kUserError;
  }
  std::cerr << "tcstudio-cli: unknown command '" << cmd << "'\n" << kUsage;
  return kUsageError;
}
