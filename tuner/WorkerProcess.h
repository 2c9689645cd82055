#pragma once
// The tuner's side of the measuring child process: start it, send a job, wait for the
// reply under a time limit. A child that dies (a candidate's segfault, the memory limit)
// or goes quiet (a hang) costs that one job, recorded as Crash or Timeout with the
// reason; the next job starts a fresh child. Jobs may be sent ahead, so the child compiles
// several at once between timings; when a child dies with several jobs in it, they are
// sent again one at a time, so the failure lands on the job that caused it.
#include <chrono>
#include <deque>
#include <optional>
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

  // Sends a job without waiting for its reply; `timeout_s` counts from when the child can
  // start on it (its sending or the reply before it, whichever is later).
  void send(const MeasureJob& job, double timeout_s);
  // The reply to the oldest job sent and not answered yet.
  // Errors: Internal when the worker cannot be started at all (a missing program), or
  // nothing is in flight.
  Expected<MeasureReply> receive();
  size_t in_flight() const { return queue_.size(); }
  // One job, sent and answered (nothing else in flight).
  Expected<MeasureReply> measure(const MeasureJob& job, double timeout_s);
  int restarts() const { return restarts_; }  // children replaced after a crash or hang

 private:
  Status start();
  std::string reap(bool kill_first);  // how the child ended, in words
  Status write_queued();              // the jobs the child may have now

  using Clock = std::chrono::steady_clock;
  // The child's next reply line; or, when it dies or stays silent until `deadline`, no
  // line: the child is reaped and status (Crash, Timeout) and why say how.
  struct Heard {
    std::optional<std::string> line;
    TrialStatus status = TrialStatus::Ok;
    std::string why;
  };
  Expected<Heard> next_line(Clock::time_point deadline, double timeout_s);
  struct Queued {
    MeasureJob job;
    double timeout_s = 0;
    bool in_child = false;
    Clock::time_point sent;
  };
  std::vector<std::string> command_;
  int pid_ = -1, to_child_ = -1, from_child_ = -1;
  std::string pending_;
  int restarts_ = 0;
  std::deque<Queued> queue_;  // sent, not answered; oldest first
  int alone_ = 0;             // after a child died with several jobs, this many go one at a time
  Clock::time_point last_reply_;
};

// This program's own executable, to start `<it> worker`.
std::string own_executable();

}  // namespace tcs::tuner
