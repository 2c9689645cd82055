#pragma once
// The measuring child process's side (`tcstudio-cli worker`): compile a candidate, check
// it against the interpreter, time it with the one timing routine, reply. Jobs read ahead
// are compiled and checked side by side, one per core; each is timed alone. Every outcome
// becomes a reply; what it cannot reply to (a segfault, a hang) the parent sees as the
// child dying or going quiet (tuner/WorkerProcess.h).
#include <functional>
#include <istream>
#include <memory>

#include "kernel/Kernel.h"
#include "tuner/WorkerProtocol.h"

namespace tcs::tuner {

struct WorkerHooks {
  // Tests only (fault injection): wraps each compiled kernel, to crash, hang or give a
  // wrong result on purpose. The product's worker passes no hooks.
  std::function<std::shared_ptr<Kernel>(std::shared_ptr<Kernel>, const MeasureJob&)> wrap_kernel;
};

MeasureReply run_job(const MeasureJob& job, const WorkerHooks& hooks = {});

// Reads jobs from `in` until it ends, writing one reply line per job, in order, to
// `reply_fd`. Jobs read ahead are prepared on every core, but never while one is timed.
// Returns the process's exit code.
int worker_serve(std::istream& in, int reply_fd, const WorkerHooks& hooks = {});

// A worker's main: replies go to the real stdout, anything else written to stdout (by a
// library) is sent to stderr so it cannot break a reply line; `memory_mb` caps the data
// the process may allocate (0: no cap).
int worker_main(int memory_mb, const WorkerHooks& hooks = {});

}  // namespace tcs::tuner
