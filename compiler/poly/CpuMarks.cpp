// Pass 5: CPU mapping decisions, recorded per loop id. On each path from the root, the
// outermost parallel (coincident) loop that runs more than once goes to the thread pool;
// the innermost loop is vectorised when it is parallel; register tiles are unrolled and,
// when asked, their reduction loop keeps the accumulators in registers.
#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

bool has_band_below(const isl::schedule_node& band) {
  return !band.child(0).every_descendant([](isl::schedule_node n) { return !n.isa<isl::schedule_node_band>(); });
}

class CpuMarker {
 public:
  explicit CpuMarker(PolyJob& job) : job_(job) {}

  void visit(const isl::schedule_node& node, bool parallel_above) {
    if (node.isa<isl::schedule_node_mark>() && node.child(0).isa<isl::schedule_node_band>()) {
      std::vector<int> ids = band_mark_ids(mark_name(node));
      if (!ids.empty()) {
        isl::schedule_node_band band = node.child(0).as<isl::schedule_node_band>();
        parallel_above = mark_band(band, ids, parallel_above);
        visit(band.child(0), parallel_above);
        return;
      }
    }
    for (unsigned i = 0, n = node.n_children(); i < n; ++i) visit(node.child(int(i)), parallel_above);
  }

 private:
  bool mark_band(const isl::schedule_node_band& band, const std::vector<int>& ids, bool parallel_above) {
    const MappingOptions& o = job_.options_for(band);  // the kernel's, or its statements' own
    bool innermost = !has_band_below(band);
    bool vectorises = o.cpu.vectorize && o.cpu.vector_width > 1;
    // The lanes of the band's last loop, which a register tile's columns are (it is
    // vectorised below when it is the innermost and coincident).
    int lanes = innermost && vectorises && band.member_get_coincident(int(ids.size()) - 1) ? o.cpu.vector_width : 1;
    bool unroll_register_tile = unrolls_register_tile(ids, lanes);
    for (size_t i = 0; i < ids.size(); ++i) {
      LoopInfo& info = job_.loops[ids[i]];
      info.coincident = band.member_get_coincident(int(i));
      int64_t span = loop_span(job_, band, int(i), ids[i]);
      bool runs_more_than_once = span != 1;  // 0: symbolic, assume it does
      if (o.cpu.parallel && !parallel_above && info.coincident && runs_more_than_once) {
        info.parallel = true;
        parallel_above = true;
      }
      // Register tiles: the members the register tile bounds are unrolled; the reduction
      // loop around them may keep the accumulators in registers.
      if (info.role == LoopRole::RegisterPoint) {
        if (info.tile_size > 0 && unroll_register_tile) info.register_tile = true, info.unroll = -1;
        else if (!info.coincident && o.cpu.register_accumulate) info.accumulate = true;
      }
      bool last = i + 1 == ids.size();
      if (innermost && last && runs_more_than_once) {
        // A loop that is not parallel is a reduction here (the language has no other
        // recurrence); LLVM vectorises it only where it proves the reduction, and the
        // statements mark their combining operation reassociable.
        // A reduction over fewer values than a vector has lanes (a pooling window) stays
        // scalar: LLVM unrolls it and vectorises the loop around it instead. One of 8 values
        // or more that fills at least half a vector (a global pooling's rows of 14 at 16
        // lanes) is a masked vector: the loop around it may read with a stride of a whole
        // image, which LLVM vectorised with a gather per vector.
        bool window = span > 0 && span < o.cpu.vector_width && (span < 8 || 2 * span < o.cpu.vector_width);
        bool reduces = !info.coincident && !info.accumulate && !info.register_tile && !window;
        if (vectorises && (info.coincident || reduces)) {
          info.vector_width = o.cpu.vector_width;
          info.reduction = reduces;
        }
        if (o.unroll > 1 && info.unroll == 0) info.unroll = o.unroll;
      }
    }
    return parallel_above;
  }

  // A register tile is unrolled when its statement copies are few enough (past 256,
  // unrolling costs more compile time than it saves) or, vectorised, when its vector
  // operations fit the largest vector register file (32). A rolled register tile loses its
  // accumulators to memory: batched matmul's 12 x 32 tile (24 vectors, 384 copies) ran 17
  // times slower rolled than unrolled.
  static constexpr int64_t kMaxUnrolledPoints = 256;
  static constexpr int64_t kMaxUnrolledVectors = 32;

  bool unrolls_register_tile(const std::vector<int>& ids, int lanes) const {
    int64_t points = 1, vectors = 1;
    for (size_t i = 0; i < ids.size(); ++i) {
      int64_t t = job_.loops.at(ids[i]).tile_size;
      if (t <= 0) continue;
      points *= t;
      vectors *= i + 1 == ids.size() ? (t + lanes - 1) / lanes : t;
    }
    return points <= kMaxUnrolledPoints || (lanes > 1 && vectors <= kMaxUnrolledVectors);
  }

  PolyJob& job_;
};

}  // namespace

void mark_cpu_loops(PolyJob& job) { CpuMarker(job).visit(job.schedule.root(), false); }

}  // namespace tcs::poly
