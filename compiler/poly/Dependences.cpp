// Pass 2: dependences under the textual order, all memory-based (every earlier write of
// an element before a read of it, and so on). Value-based flow (only the last write)
// would be wrong here: a reduction's self-dependences on its left-hand element are
// collected apart so the scheduler may reorder its iterations (that only changes
// rounding), and then "the last write" is no longer last; every iteration must precede
// the reader. Reduction dependences still keep reduction loops from running in parallel.
#include "poly/PolyJob.h"


namespace tcs::poly {
namespace {

isl::union_map lex_lt(const isl::union_map& sched) {
  return isl::manage(isl_union_map_lex_lt_union_map(sched.copy(), sched.copy()));
}

}  // namespace

void compute_dependences(PolyJob& job) {
  // Memory-based dependences are pairs of accesses to one element, the source first in
  // the textual order. Composing the access relations directly is several times faster
  // than isl's dataflow analysis with may-sources, which gives the same relation.
  isl::union_map order = job.initial.get_map();
  isl::union_map before = lex_lt(order);
  auto pairs = [&](const isl::union_map& sources, const isl::union_map& sinks) {
    return sources.apply_range(sinks.reverse()).intersect(before);
  };
  isl::union_map flow = pairs(job.writes, job.reads);
  isl::union_map anti = pairs(job.reads, job.writes);
  isl::union_map output = pairs(job.writes, job.writes);

  // Pairs of instances of one reduction statement that update the same element, in order.
  isl::union_map reduction(job.ctx, "{ }");
  for (size_t i = 0; i < job.stmts.size(); ++i) {
    const PolyStmt& s = job.stmts[i];
    if (s.is_init || !job.def.stmts[size_t(s.source_stmt)].reduces()) continue;
    isl::union_map w(isl::map(job.ctx, job.info.statements[i].writes[0]));
    isl::union_map same = w.apply_range(w.reverse());
    reduction = reduction.unite(same.intersect(before));
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
