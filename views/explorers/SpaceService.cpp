// Lowering at view sizes reuses the options the kernel compiled with (outcome's
// options_json): tile sizes stay as the user set them, so a view smaller than a tile shows
// one tile, and the view says it is scaled down.
#include "views/explorers/SpaceService.h"


#include <chrono>
#include <set>

#include "Compiler.h"
#include "views/explorers/LatestJob.h"
#include "views/service/CompileService.h"

namespace tcs {

namespace {

int64_t points_at(const SemaDef& def, const SizeMap& sizes) {
  auto shapes = shapes_evaluate(def, sizes);
  if (!shapes) return -1;
  int64_t total = 0;
  for (const std::vector<IndexRange>& stmt : shapes->stmts) {
    int64_t n = 1;
    for (const IndexRange& r : stmt) n *= std::max<int64_t>(0, r.hi - r.lo + 1);
    total += n;
  }
  return total;
}

}  // namespace

SizeMap view_sizes_for(const SemaDef& def, const SizeMap& sizes, int64_t budget) {
  SizeMap view = sizes;
  std::set<std::string> stuck;
  for (int64_t n = points_at(def, view); n > budget;) {
    std::string largest;
    for (const auto& [name, value] : view)
      if (!stuck.count(name) && value > 1 && (largest.empty() || value > view[largest])) largest = name;
    if (largest.empty()) break;
    SizeMap next = view;
    next[largest] = (view[largest] + 1) / 2;
    int64_t m = points_at(def, next);
    if (m < 0) {
      stuck.insert(largest);  // the kernel's size rules refuse it smaller
      continue;
    }
    view = next, n = m;
  }
  return view;
}

SpaceResult compute_space(const SpaceRequest& request, const std::atomic<bool>* cancel) {
  auto t0 = std::chrono::steady_clock::now();
  SpaceResult r;
  r.outcome = request.outcome;
  const CompileOutcome& o = *request.outcome;
  const SemaDef* def = o.def();
  if (!def || !o.shapes || !o.result) {
    r.error = "compile the kernel to see its iteration space";
    return r;
  }
  r.view_sizes = request.view_sizes.empty() ? view_sizes_for(*def, o.shapes->sizes) : request.view_sizes;
  for (const auto& [name, value] : r.view_sizes)
    if (auto it = o.shapes->sizes.find(name); it != o.shapes->sizes.end() && value < it->second) r.scaled_down = true;
  auto shapes = shapes_evaluate(*def, r.view_sizes);
  if (!shapes) {
    r.error = "view sizes: " + shapes.error();
    return r;
  }
  auto options = mapping_options_from_json(o.options_json);
  if (!options) {
    r.error = options.error();
    return r;
  }
  KernelSetup setup{o.checked, def, o.header_sizes, *shapes};
  CompileHooks hooks;
  hooks.cancel = cancel;
  auto lowered = compile_kernel(setup, *options, CodegenChoice{o.result->target, {}, false}, hooks);
  if (!lowered) {
    r.error = "at the view sizes: " + lowered.error();
    return r;
  }
  SpaceQuery q;
  q.threads = request.threads;
  q.schedule = request.schedule;
  q.cancel = cancel;
  auto t1 = std::chrono::steady_clock::now();
  auto space = iteration_space(lowered->lowering, q);
  r.query_milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  if (!space) r.error = space.error();
  else r.space = std::move(*space);
  r.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

SpaceService::SpaceService(QObject* parent) : QObject(parent), job_(new LatestJob(this)) {}

bool SpaceService::busy() const { return job_->busy(); }

uint64_t SpaceService::submit(SpaceRequest request) {
  return job_->submit([this, request = std::move(request)](const std::atomic<bool>& cancel, const LatestJob::Post& post) {
    auto result = std::make_shared<SpaceResult>(compute_space(request, &cancel));
    post([this, result] { emit ready(result); });
  });
}

}  // namespace tcs
