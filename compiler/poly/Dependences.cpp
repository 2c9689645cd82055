// Pass 2: dependences under the textual order. Flow dependences are value-based (the last
// write before each read); anti and output dependences are memory-based. A reduction's
// self-dependences on its left-hand element are collected apart: the scheduler may
// reorder them (that only changes floating-point rounding), but they still keep reduction
// loops from running in parallel.
#include "poly/PolyJob.h"


namespace tcs::poly {
namespace {

isl::union_map lex_lt(const isl::union_map& sched) {
  return isl::manage(isl_union_map_lex_lt_union_map(sched.copy(), sched.copy()));
}

}  // namespace

void compute_dependences(PolyJob& job) {
  isl::union_map order = job.initial.get_map();
  isl::union_map flow = isl::union_access_info(job.reads)
                            .set_must_source(job.writes)
                            .set_schedule_map(order)
                            .compute_flow()
                            .get_may_dependence();
  isl::union_map anti = isl::union_access_info(job.writes)
                            .set_may_source(job.reads)
                            .set_schedule_map(order)
                            .compute_flow()
                            .get_may_dependence();
  isl::union_map output = isl::union_access_info(job.writes)
                              .set_may_source(job.writes)
                              .set_schedule_map(order)
                              .compute_flow()
                              .get_may_dependence();

  // Pairs of instances of one reduction statement that update the same element, in order.
  isl::union_map reduction(job.ctx, "{ }");
  for (size_t i = 0; i < job.stmts.size(); ++i) {
    const PolyStmt& s = job.stmts[i];
    const ast::Stmt& a = *job.def.stmts[size_t(s.source_stmt)].ast;
    if (s.is_init || a.reduce == ast::ReduceOp::None) continue;
    isl::union_map w(isl::map(job.ctx, job.info.statements[i].writes[0]));
    isl::union_map same = w.apply_range(w.reverse());
    reduction = reduction.unite(same.intersect(lex_lt(order)));
  }
  auto keep_reduction = [&](const isl::union_map& d) { return d.intersect(reduction); };
  job.flow = flow.coalesce();
  job.anti = anti.coalesce();
  job.output = output.coalesce();
  job.reduction = keep_reduction(job.flow).unite(keep_reduction(job.anti)).unite(keep_reduction(job.output)).coalesce();
  job.info.flow = isl_text(job.flow);
  job.info.anti = isl_text(job.anti);
  job.info.output = isl_text(job.output);
  job.info.reduction = isl_text(job.reduction);
}

}  // namespace tcs::poly
