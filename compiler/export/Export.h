#pragma once
// A kernel exported into the user's own C or C++ project: a bundle of files that builds
// with nothing but a C compiler, libc and libm (OpenMP when present):
//   NAME.h          the C signature, every tensor documented with its role, type and shape
//   NAME.c          the kernel as readable C (the same text the IDE shows)
//   NAME.o          the kernel compiled by LLVM for a chosen CPU, and NAME_object.c, its glue
//   CMakeLists.txt  a static library target NAME: the object where the machine building it
//                   can run it, the C otherwise (NAME_USE_OBJECT chooses)
//   example.c       reads the inputs from .npy files, runs NAME, writes the outputs as .npy
//   README.md       how to use it
// The CLI's `export` and the IDE's File > Export both call export_bundle.
#include <string>
#include <vector>

#include "kernel/KernelSetup.h"
#include "options/MappingOptions.h"
#include "support/Expected.h"

namespace tcs {

struct ExportSettings {
  std::string cpu = "host";  // the LLVM CPU NAME.o is compiled for ("host": this machine)
  std::string source_name;   // the .tc file, for the comments
  // The function takes the sizes as arguments and runs on any sizes the kernel accepts
  // (the setup's sizes only choose tiles); false: specialised to the setup's sizes.
  bool symbolic_sizes = false;
};

struct BundleFile {
  std::string name;   // relative to the bundle's folder
  std::string bytes;
};

struct Bundle {
  std::string kernel;  // NAME: the def's name, the library's and the function's
  std::vector<BundleFile> files;
};

// Errors: Options (options the kernel refuses, an unknown CPU), Sizes (sizes asked to stay
// symbolic where the kernel needs them fixed), Internal.
Expected<Bundle> export_bundle(const KernelSetup& setup, const MappingOptions& options, const ExportSettings& settings);

// Writes every file under `dir` (created if missing). InputFile errors name the path.
Status bundle_write(const Bundle& bundle, const std::string& dir);

}  // namespace tcs
