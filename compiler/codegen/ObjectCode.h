#pragma once
// An object file for the user's own project (export): its bytes and what a build needs to
// know to link it and to tell whether a CPU can run it.
#include <string>
#include <vector>

namespace tcs {

struct ObjectCode {
  std::string bytes;                   // an ELF object; empty when none was asked for
  std::string cpu;                     // the LLVM CPU it was compiled for ("host" resolved: "znver4")
  std::vector<std::string> builtins;   // builtins it calls as <prefix>_builtin_<name>
  // Temporaries it keeps in buffers of its own (PackSite::local): their arguments are
  // never touched, and a caller may pass NULL.
  std::vector<std::string> local_temporaries;
  // The x86 extensions it was compiled with that a program can test at run time, by the
  // names of codegen/X86Extensions.h (LLVM's): a CPU that lacks one may not run the object.
  // Empty for other architectures.
  std::vector<std::string> cpu_features;
};

}  // namespace tcs
