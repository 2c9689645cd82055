#pragma once
// "Use the tuned options": the one lookup the CLI's --best, the IDE and the exporter
// share. It always says what it did, in one sentence a face shows as it is: which
// record it found, or that there is none and the default is used (never a silent
// fallback, the complaint TVM's users have most).
#include <optional>
#include <string>

#include "kernel/KernelSetup.h"
#include "options/MappingOptions.h"
#include "support/Expected.h"
#include "tuner/Cache.h"

namespace tcs::tuner {

struct BestOptions {
  std::optional<BestRecord> record;  // none: nothing tuned for this kernel, sizes and machine
  MappingOptions options;            // the record's options, or the default preset's
  std::string note;                  // what was used and why
};

// Looks up `kernel` run on `threads` threads of this machine's target `target` ("cpu") in
// the cache at `path`, tuned with cold caches or warm as `cold` says. Without a record
// for that thread count, one for another is used, and for each thread count one timed
// the other way; the note says so. A missing file is "nothing tuned"; a file that cannot
// be read is an error (Cache).
Expected<BestOptions> best_options(const std::string& path, const KernelSetup& kernel, int threads, bool cold = false,
                                   const std::string& target = "cpu");

}  // namespace tcs::tuner
