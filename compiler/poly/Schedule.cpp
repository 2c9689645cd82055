// Pass 3: the isl scheduler. Validity is every dependence except the reductions' own
// (their order only changes rounding); coincidence keeps them, so a reduction loop is
// never marked parallel; proximity asks for locality along all of them. The fusion
// strategy maps onto isl's options:
//   Max                  fuse whatever the dependences allow (isl's default clustering)
//   Preserve3Coincident  isl's maximize_coincidence: do not fuse when it costs an outer
//                        parallel loop (TC's exact rule counts three; isl's is "any")
//   Min                  one strongly connected component at a time (serialize_sccs)
// Under Max and Preserve3Coincident, loop nests isl left apart that scan the same rows are
// then fused along them (poly/OuterFusion.cpp).
#include "poly/PolyJob.h"


namespace tcs::poly {
namespace {

constexpr unsigned long kMaxSchedulerOperations = 1'000'000;

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
  isl_options_set_schedule_max_coefficient(ctx, 16);
  isl_options_set_schedule_max_constant_term(ctx, 16);
  isl::schedule s;
  bool fuse_rows = job.options.outer_fusion != FusionStrategy::Min;
  for (int attempt = 0; attempt < 2 && s.is_null(); ++attempt) {
    if (attempt == 1) {
      set_fusion_options(ctx, FusionStrategy::Min);
      fuse_rows = false;
      job.note("the isl scheduler gave up on " + std::string(fusion_strategy_name(job.options.outer_fusion)) +
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
    job.note("the isl scheduler gave up; the schedule is textual order");
    s = job.initial;
  } else if (fuse_rows) {
    s = fuse_outer_loops(job, s);
  }
  job.schedule = mark_all_bands(job, s.root()).schedule();
}

}  // namespace tcs::poly
