#pragma once
// Explorer work off the GUI thread, newest first: submitting a job cancels the one before
// (its flag is set) and nothing that job posts reaches a view any more. A job posts its
// results as it goes (the fusion explorer, one strategy at a time); each post runs on the
// GUI thread, and only while its job is still the newest. One worker thread: explorer
// jobs time kernels, and two at once would disturb each other's figures.
#include <QObject>

#include <atomic>
#include <functional>
#include <memory>

class QThreadPool;

namespace tcs {

class LatestJob : public QObject {
  Q_OBJECT
 public:
  using Post = std::function<void(std::function<void()> on_gui)>;
  using Work = std::function<void(const std::atomic<bool>& cancel, const Post& post)>;

  explicit LatestJob(QObject* parent = nullptr);
  ~LatestJob() override;  // cancels the running job and waits for it

  uint64_t submit(Work work);
  void cancel();
  // The newest job has not finished yet.
  bool busy() const { return busy_; }

 signals:
  void finished();  // the newest job returned (after its last post was delivered)

 private:
  QThreadPool* pool_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  uint64_t latest_ = 0;
  bool busy_ = false;
};

}  // namespace tcs
