#include "views/explorers/LatestJob.h"

#include <QPointer>
#include <QThreadPool>

namespace tcs {

LatestJob::LatestJob(QObject* parent) : QObject(parent), pool_(new QThreadPool(this)) { pool_->setMaxThreadCount(1); }

LatestJob::~LatestJob() {
  cancel();
  pool_->waitForDone();
}

void LatestJob::cancel() {
  if (cancel_) cancel_->store(true);
  busy_ = false;
}

uint64_t LatestJob::submit(Work work) {
  cancel();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  uint64_t id = ++latest_;
  busy_ = true;
  QPointer<LatestJob> self(this);
  auto flag = cancel_;
  // Queued to the GUI thread; dropped when a newer job came or the flag was set. The pool
  // is waited for in the destructor, so `self` is valid while the job runs.
  auto deliver = [self, flag, id](std::function<void()> on_gui) {
    if (flag->load() || !self) return;
    QMetaObject::invokeMethod(self.data(), [self, flag, id, on_gui = std::move(on_gui)] {
      if (!self || id != self->latest_ || flag->load()) return;
      if (on_gui) {
        on_gui();
        return;
      }
      self->busy_ = false;  // the end marker
      emit self->finished();
    }, Qt::QueuedConnection);
  };
  pool_->start([flag, deliver, work = std::move(work)] {
    if (!flag->load()) work(*flag, deliver);
    deliver({});  // the end marker: an empty function, posted last
  });
  return id;
}

}  // namespace tcs
