#pragma once
// The tuner's side of the measuring child process: start it, send a job, wait for the
// reply under a time limit. A child that dies (a candidate's segfault, the memory limit)
// or goes quiet (a hang) costs that one job, recorded as Crash or Timeout with the
// reason; the next job starts a fresh child.
#include <string>
#include <vector>

#include "tuner/WorkerProtocol.h"

namespace tcs::tuner {

class WorkerProcess {
 public:
  // `command`: the program and its arguments, e.g. {"/usr/bin/tcstudio-cli", "worker"}.
  explicit WorkerProcess(std::vector<std::string> command);
  ~WorkerProcess();  // closes the pipe (the child exits at end of input) and reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Errors: Internal when the worker cannot be started at all (a missing program).
  Expected<MeasureReply> measure(const MeasureJob& job, double timeout_s);
  int restarts() const { return restarts_; }  // children replaced after a crash or hang

 private:
  Status start();
  std::string reap(bool kill_first);  // how the child ended, in words

  std::vector<std::string> command_;
  int pid_ = -1, to_child_ = -1, from_child_ = -1;
  std::string pending_;
  int restarts_ = 0;
};

// This program's own executable, to start `<it> worker`.
std::string own_executable();

}  // namespace tcs::tuner
