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

Expected<MeasureReply> WorkerProcess::measure(const MeasureJob& job, double timeout_s) {
  if (pid_ < 0) {
    if (Status s = start(); !s) return s.failure();
  }
  auto fail = [&](TrialStatus status, std::string why) {
    MeasureReply r;
    r.id = job.id;
    r.status = status;
    r.message = std::move(why);
    ++restarts_;
    return r;
  };
  std::string line = job_to_line(job) + "\n";
  for (size_t done = 0; done < line.size();) {
    ssize_t n = ::write(to_child_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // it died: reading tells how
    done += size_t(n);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[65536];
  while (pending_.find('\n') == std::string::npos) {
    double left = std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      reap(true);
      return fail(TrialStatus::Timeout, "no result within " + std::to_string(int(timeout_s)) + " s; the worker was stopped");
    }
    pollfd p{from_child_, POLLIN, 0};
    int ready = ::poll(&p, 1, int(left) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string how = reap(false);
      if (how == "the worker exited with code " + std::to_string(kExecFailed) && restarts_ == 0)
        return Error{ErrorKind::Internal, "cannot start the measuring worker '" + command_[0] + "'"};
      return fail(TrialStatus::Crash, how + " while measuring this candidate");
    }
    pending_.append(buf, size_t(n));
  }
  size_t nl = pending_.find('\n');
  std::string reply = pending_.substr(0, nl);
  pending_.erase(0, nl + 1);
  auto r = reply_from_line(reply);
  if (r && r->id != job.id) r = Error{ErrorKind::Internal, "a reply to another job"};
  if (!r) {
    reap(true);
    return fail(TrialStatus::Crash, "the worker replied with something unreadable: " + reply.substr(0, 200));
  }
  return *r;
}

}  // namespace tcs::tuner
