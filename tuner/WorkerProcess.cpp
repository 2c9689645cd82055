#include "tuner/WorkerProcess.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>

namespace tcs::tuner {

namespace {

constexpr int kExecFailed = 127;

}  // namespace

std::string own_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

WorkerProcess::WorkerProcess(std::vector<std::string> command) : command_(std::move(command)) {
  // A write to a child that just died must be an error, not the end of the tuner.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0) reap(false);
}

Status WorkerProcess::start() {
  if (command_.empty() || command_[0].empty()) return Error{ErrorKind::Internal, "no measuring worker to start"};
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0) return Error{ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno)};
  if (::pipe2(up, O_CLOEXEC) != 0) {
    ::close(down[0]), ::close(down[1]);
    return Error{ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno)};
  }
  std::vector<char*> argv;
  for (std::string& a : command_) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]}) ::close(fd);
    return Error{ErrorKind::Internal, std::string("fork: ") + std::strerror(errno)};
  }
  if (pid == 0) {
    // Ctrl-C is for the tuner, which stops after the candidate in flight; if the tuner
    // dies, so does the worker, even in the middle of a hanging candidate.
    ::signal(SIGINT, SIG_IGN);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kExecFailed);
    ::dup2(down[0], STDIN_FILENO);
    ::dup2(up[1], STDOUT_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(kExecFailed);
  }
  ::close(down[0]);
  ::close(up[1]);
  pid_ = pid;
  to_child_ = down[1];
  from_child_ = up[0];
  pending_.clear();
  return success();
}

std::string WorkerProcess::reap(bool kill_first) {
  ::close(to_child_);
  if (kill_first) ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(from_child_);
  pid_ = to_child_ = from_child_ = -1;
  if (WIFSIGNALED(status))
    return "the worker died of signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "the worker exited with code " + std::to_string(WEXITSTATUS(status));
  return "the worker ended";
}

void WorkerProcess::send(const MeasureJob& job, double timeout_s) { queue_.push_back({job, timeout_s, false, {}}); }

Status WorkerProcess::write_queued() {
  for (size_t i = 0; i < queue_.size(); ++i) {
    Queued& q = queue_[i];
    if (q.in_child) continue;
    if (alone_ > 0 && i > 0) break;  // the oldest alone, then the next
    if (pid_ < 0) {
      if (Status s = start(); !s) return s;
    }
    std::string line = job_to_line(q.job) + "\n";
    for (size_t done = 0; done < line.size();) {
      ssize_t n = ::write(to_child_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // it died: reading tells how
      done += size_t(n);
    }
    q.in_child = true;
    q.sent = Clock::now();
  }
  return success();
}

Expected<MeasureReply> WorkerProcess::receive() {
  if (queue_.empty()) return Error{ErrorKind::Internal, "no measuring job in flight"};
  // The oldest job's answer; when the child dies or hangs, its failure unless other jobs
  // were in the child too: then all of them again, one at a time.
  auto answered = [&](MeasureReply r) {
    queue_.pop_front();
    if (alone_ > 0) --alone_;
    last_reply_ = Clock::now();
    return r;
  };
  auto failed = [&](TrialStatus status, std::string why) -> std::optional<MeasureReply> {
    ++restarts_;
    size_t in_child = 0;
    for (Queued& q : queue_) in_child += q.in_child, q.in_child = false;
    if (in_child > 1) {
      alone_ = int(in_child);
      return std::nullopt;
    }
    MeasureReply r;
    r.id = queue_.front().job.id;
    r.status = status;
    r.message = std::move(why);
    return answered(std::move(r));
  };
  for (;;) {
    if (Status s = write_queued(); !s) return s.failure();
    const Queued& head = queue_.front();
    auto deadline = std::max(head.sent, last_reply_) +
                    std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(head.timeout_s));
    auto heard = next_line(deadline, head.timeout_s);
    if (!heard) return heard.failure();
    if (heard->line) {
      auto r = reply_from_line(*heard->line);
      if (r && r->id != head.job.id) r = Error{ErrorKind::Internal, "a reply to another job"};
      if (r) return answered(std::move(*r));
      reap(true);
      heard->status = TrialStatus::Crash;
      heard->why = "the worker replied with something unreadable: " + heard->line->substr(0, 200);
    }
    if (auto failure = failed(heard->status, std::move(heard->why))) return *failure;
  }
}

Expected<WorkerProcess::Heard> WorkerProcess::next_line(Clock::time_point deadline, double timeout_s) {
  char buf[65536];
  while (pending_.find('\n') == std::string::npos) {
    double left = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left <= 0) {
      reap(true);
      return Heard{std::nullopt, TrialStatus::Timeout,
                   "no result within " + std::to_string(int(timeout_s)) + " s; the worker was stopped"};
    }
    pollfd p{from_child_, POLLIN, 0};
    int ready = ::poll(&p, 1, int(left) + 1);
    if (ready <= 0) continue;  // interrupted, or the deadline is checked again
    ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string how = reap(false);
      if (how == "the worker exited with code " + std::to_string(kExecFailed) && restarts_ == 0)
        return Error{ErrorKind::Internal, "cannot start the measuring worker '" + command_[0] + "'"};
      return Heard{std::nullopt, TrialStatus::Crash, how + " while measuring this candidate"};
    }
    pending_.append(buf, size_t(n));
  }
  size_t nl = pending_.find('\n');
  Heard h{pending_.substr(0, nl), TrialStatus::Ok, ""};
  pending_.erase(0, nl + 1);
  return h;
}

Expected<MeasureReply> WorkerProcess::measure(const MeasureJob& job, double timeout_s) {
  send(job, timeout_s);
  return receive();
}

}  // namespace tcs::tuner
