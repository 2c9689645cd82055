#pragma once
// The iteration space of the kernel the editor shows, computed off the GUI thread: the
// kernel is lowered again at small view sizes with the options it compiled with, then
// poly/IterationSpace enumerates it. The newest request wins; an older one is cancelled
// and its result never reaches a view.
#include <QObject>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "lang/Sema.h"
#include "poly/IterationSpace.h"

namespace tcs {

struct CompileOutcome;

struct SpaceRequest {
  std::shared_ptr<const CompileOutcome> outcome;  // a compiled kernel (its def and options)
  SizeMap view_sizes;     // empty: view_sizes_for the kernel's sizes
  std::string schedule;   // a what-if schedule (SpaceQuery::schedule), empty for none
  int threads = 2;
};

struct SpaceResult {
  std::shared_ptr<const CompileOutcome> outcome;
  SizeMap view_sizes;
  bool scaled_down = false;  // the view sizes are smaller than the kernel's
  std::optional<IterationSpace> space;
  std::string error;  // why there is no space (view sizes, a what-if schedule isl cannot read)
  double milliseconds = 0;        // the whole job
  double query_milliseconds = 0;  // of which the iteration-space query (the rest: lowering)
};

// Sizes at most the kernel's, halving the largest until every statement together has at
// most `budget` points (as far as the kernel's own size rules allow).
SizeMap view_sizes_for(const SemaDef& def, const SizeMap& sizes, int64_t budget = 160000);

// The same work done in the calling thread (tests, benchmarks).
SpaceResult compute_space(const SpaceRequest& request, const std::atomic<bool>* cancel = nullptr);

class LatestJob;

class SpaceService : public QObject {
  Q_OBJECT
 public:
  explicit SpaceService(QObject* parent = nullptr);
  uint64_t submit(SpaceRequest request);
  bool busy() const;

 signals:
  void ready(std::shared_ptr<const SpaceResult> result);

 private:
  LatestJob* job_;
};

}  // namespace tcs
