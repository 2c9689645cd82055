// Pass 3: the isl scheduler. Validity is every dependence except the reductions' own
// (their order only changes rounding); coincidence keeps them, so a reduction loop is
// never marked parallel; proximity asks for locality along all of them. The fusion
// strategy maps onto isl's options:
//   Max                  fuse whatever the dependences allow (isl's default clustering)
//   Preserve3Coincident  isl's maximize_coincidence: do not fuse when it costs an outer
//                        parallel loop (TC's exact rule counts three; isl's is "any")
//   Min                  one strongly connected component at a time (serialize_sccs)
// Under Max and Preserve3Coincident, loop nests isl left apart that scan the same rows are
// then fused along them (poly/OuterFusion.cpp); under every strategy, loops isl made run
// backwards then turn forwards where that is legal (poly/ForwardLoops.cpp).
//
// The scheduler's answer depends only on its constraints and options, and most compiles
// repeat a question already asked: the tuner's candidates and the IDE's edits of tile
// sizes differ only in later passes. Answers are kept per process as isl text (with the
// notes they gave) and read back, which costs a millisecond where computing costs up to
// a hundred or more (a convolution).
#include <mutex>

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

constexpr unsigned long kMaxSchedulerOperations = 1'000'000;

struct Answer {
  std::string schedule;            // isl text, before our band marks
  std::vector<std::string> notes;  // what the scheduling said about fallbacks
};

class AnswerMemo {
 public:
  std::optional<Answer> find(const std::string& question) {
    std::lock_guard lock(mutex_);
    auto it = answers_.find(question);
    if (it == answers_.end()) return std::nullopt;
    return it->second;
  }
  void keep(const std::string& question, Answer a) {
    std::lock_guard lock(mutex_);
    if (answers_.size() >= 256) answers_.clear();  // bounded: a session asks a few dozen questions
    answers_.emplace(question, std::move(a));
  }

 private:
  std::mutex mutex_;
  std::map<std::string, Answer> answers_;
};

AnswerMemo& memo() {
  static AnswerMemo m;
  return m;
}

void set_fusion_options(isl_ctx* ctx, FusionStrategy f) {
  isl_options_set_schedule_serialize_sccs(ctx, f == FusionStrategy::Min);
  isl_options_set_schedule_maximize_coincidence(ctx, f == FusionStrategy::Preserve3Coincident);
  isl_options_set_schedule_whole_component(ctx, 0);
  isl_options_set_schedule_outer_coincidence(ctx, 0);
}

isl::schedule_node mark_all_bands(PolyJob& job, isl::schedule_node node) {
  bool band = node.isa<isl::schedule_node_band>();
  if (band) node = mark_band(job, node.as<isl::schedule_node_band>(), LoopRole::Scheduled);
  for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = mark_all_bands(job, node.child(int(i))).parent();
  return band ? node.parent() : node;
}

}  // namespace

void compute_schedule(PolyJob& job) {
  set_fusion_options(job.ctx.get(), job.options.outer_fusion);
  isl::union_map all = job.flow.unite(job.anti).unite(job.output);
  // Symbolic sizes: the schedule must hold for every size >= 1 (every size the code may be
  // called with, when they stay symbolic: job.context); fixed sizes: for these.
  isl::set context = job.context;
  if (!job.options.fix_parameters_before_scheduling && !job.symbolic_sizes) {
    std::string names, positive;
    for (const std::string& n : job.params) {
      names += (names.empty() ? "" : ", ") + n;
      positive += (positive.empty() ? "" : " and ") + n + " >= 1";
    }
    context = isl::set(job.ctx, "[" + names + "] -> { : " + (positive.empty() ? "true" : positive) + " }");
  }
  isl::schedule_constraints sc = isl::schedule_constraints::on_domain(job.domain)
                                     .set_context(context)
                                     .set_validity(all.subtract(job.reduction))
                                     .set_coincidence(all)
                                     .set_proximity(all);
  // The scheduler's ILPs can blow up (large constants from fixed sizes, many statements
  // fused at once). Small coefficients are all our kernels need; past a bound on isl's
  // work, fall back to scheduling one statement group at a time, then to textual order.
  isl_ctx* ctx = job.ctx.get();
  // The accesses too: fusing loop nests along the rows they scan reads them.
  std::string question = std::string(fusion_strategy_name(job.options.outer_fusion)) + '\n' + isl_text(sc) + '\n' +
                         isl_text(job.reads) + '\n' + isl_text(job.writes);
  if (std::optional<Answer> known = memo().find(question)) {
    for (const std::string& n : known->notes) job.note(n);
    job.schedule = mark_all_bands(job, isl::schedule(job.ctx, known->schedule).root()).schedule();
    return;
  }
  Answer answer;
  auto note = [&](const std::string& n) {
    answer.notes.push_back(n);
    job.note(n);
  };
  isl_options_set_schedule_max_coefficient(ctx, 16);
  isl_options_set_schedule_max_constant_term(ctx, 16);
  isl::schedule s;
  bool fuse_rows = job.options.outer_fusion != FusionStrategy::Min;
  for (int attempt = 0; attempt < 2 && s.is_null(); ++attempt) {
    if (attempt == 1) {
      set_fusion_options(ctx, FusionStrategy::Min);
      fuse_rows = false;
      note("the isl scheduler gave up on " + std::string(fusion_strategy_name(job.options.outer_fusion)) +
           " fusion (too much work); statements were scheduled one group at a time");
    }
    isl_ctx_reset_operations(ctx);
    isl_ctx_set_max_operations(ctx, kMaxSchedulerOperations);
    try {
      s = sc.compute_schedule();
    } catch (const isl::exception&) {
      isl_ctx_reset_error(ctx);
    }
    isl_ctx_set_max_operations(ctx, 0);
  }
  if (s.is_null()) {
    note("the isl scheduler gave up; the schedule is textual order");
    s = job.initial;
  } else {
    if (fuse_rows) s = fuse_outer_loops(job, s);
    s = turn_loops_forward(job, s);
  }
  answer.schedule = isl_text(s);
  memo().keep(question, std::move(answer));
  job.schedule = mark_all_bands(job, s.root()).schedule();
}

}  // namespace tcs::poly
