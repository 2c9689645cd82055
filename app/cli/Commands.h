#pragma once
// The subcommands of tcstudio-cli. Each takes the arguments after its name and returns
// an exit code: 0 success, 1 a user error (with a message on stderr), 2 a usage error.
#include <string>
#include <vector>

namespace tcs::cli {

int command_check(const std::vector<std::string>& args);
int command_shapes(const std::vector<std::string>& args);
int command_compile(const std::vector<std::string>& args);
int command_run(const std::vector<std::string>& args);
int command_options(const std::vector<std::string>& args);
int command_export(const std::vector<std::string>& args);
int command_cache(const std::vector<std::string>& args);
int command_tune(const std::vector<std::string>& args);
int command_worker(const std::vector<std::string>& args);

}  // namespace tcs::cli
