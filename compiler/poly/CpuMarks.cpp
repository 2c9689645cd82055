// Pass 5: CPU mapping decisions, recorded per loop id. On each path from the root, the
// outermost parallel (coincident) loop that runs more than once goes to the thread pool,
// unless sequential loops around it would start the pool more than kMaxPoolStarts times;
// the innermost loop is vectorised when it is parallel (or, below it, a pooling's window
// loops are unrolled into it and it is); register tiles are unrolled and,
// when asked, their reduction loop keeps the accumulators in registers.
#include <bit>
#include <optional>

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

bool has_band_below(const isl::schedule_node& band) {
  return !band.child(0).every_descendant([](isl::schedule_node n) { return !n.isa<isl::schedule_node_band>(); });
}

// A parallel loop inside sequential ones starts the thread pool once per iteration of
// theirs, a microsecond or more each time. Up to this many starts (a matrix product's four
// tiles of its summed loop around the register tiles' rows) the threads still gain; past
// it the loop runs on one thread. Tiled as products, an attention's row sums started the
// pool once per key (32), and a column sum over 4096 rows whose columns formed one tile
// took 1.6-1.9 ms on two threads against 0.34-0.46 on one.
constexpr int64_t kMaxPoolStarts = 16;

// What the loops around a band decided.
struct Around {
  bool parallel = false;        // one of them runs on the threads
  int64_t sequential_runs = 1;  // how often sequential ones run what they enclose
};

class CpuMarker {
 public:
  explicit CpuMarker(PolyJob& job) : job_(job) {}

  void visit(const isl::schedule_node& node, Around around) {
    if (node.isa<isl::schedule_node_mark>() && node.child(0).isa<isl::schedule_node_band>()) {
      std::vector<int> ids = band_mark_ids(mark_name(node));
      if (!ids.empty()) {
        isl::schedule_node_band band = node.child(0).as<isl::schedule_node_band>();
        around = mark_band(band, ids, around);
        visit(band.child(0), around);
        return;
      }
    }
    for (unsigned i = 0, n = node.n_children(); i < n; ++i) visit(node.child(int(i)), around);
  }

 private:
  Around mark_band(const isl::schedule_node_band& band, const std::vector<int>& ids, Around around) {
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
      if (o.cpu.parallel && !around.parallel && info.coincident && runs_more_than_once &&
          around.sequential_runs <= kMaxPoolStarts) {
        info.parallel = true;
        around.parallel = true;
      }
      if (!info.coincident && runs_more_than_once)  // a symbolic span counts as past the limit
        around.sequential_runs = span > 0 ? std::min(around.sequential_runs * span, kMaxPoolStarts + 1) : kMaxPoolStarts + 1;
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
        // scalar: it is unrolled into the loop around it, which takes the vector where its
        // accesses run along rows (vectorise_around_windows). One of 8 values
        // or more that fills at least half a vector (a global pooling's rows of 14 at 16
        // lanes) is a masked vector: the loop around it may read with a stride of a whole
        // image, which LLVM vectorised with a gather per vector.
        bool reduces = !info.coincident && !info.accumulate && !info.register_tile && !is_window(span, o.cpu.vector_width);
        if (vectorises && (info.coincident || reduces)) {
          info.vector_width = o.cpu.vector_width;
          info.reduction = reduces;
        }
        if (o.unroll > 1 && info.unroll == 0) info.unroll = o.unroll;
      }
    }
    if (innermost && vectorises) vectorise_around_windows(band, ids, o.cpu.vector_width);
    return around;
  }

  static bool is_window(int64_t span, int lanes) { return span > 0 && span < lanes && (span < 8 || 2 * span < lanes); }

  // Window loops innermost (a pooling's kh and kw below its w) hand the vector to the loop
  // around them when that loop's accesses move a few elements a lane along a row (2*w + kw):
  // the windows are unrolled into it. Left alone, LLVM unrolled the row with its windows
  // and vectorised the loop around that, across rows, with a gather per vector: the
  // bundled 2x2 average pooling took 2.2 us on one thread so.
  void vectorise_around_windows(const isl::schedule_node_band& band, const std::vector<int>& ids, int lanes) {
    auto window = [&](size_t k) {
      const LoopInfo& w = job_.loops.at(ids[k]);
      return !w.coincident && !w.accumulate && !w.register_tile && w.vector_width == 0 && (w.span == 1 || is_window(w.span, lanes));
    };
    size_t j = ids.size();
    while (j > 0 && window(j - 1)) --j;
    if (j == ids.size() || j == 0) return;
    LoopInfo& row = job_.loops.at(ids[j - 1]);
    std::optional<int64_t> step;
    if (row.coincident && !row.register_tile && row.vector_width == 0 && row.span != 1) step = row_step(band, int(j - 1));
    if (!step) {
      // The loop around them moves a row or more (a global pooling's channels around its
      // 7 x 7 pixels): LLVM vectorised it with a gather per pixel, a pooling over
      // 32 x 2048 channels took 6 ms so on one thread. The last window is a masked vector
      // along its row instead, when it fills half a vector of at least 4 lanes.
      LoopInfo& last = job_.loops.at(ids.back());
      if (last.span >= 4) last.vector_width = std::min(lanes, int(std::bit_ceil(uint64_t(last.span)))), last.reduction = true;
      return;
    }
    // Reads a stride apart are whole loads shuffled into lanes; LLVM does that only for
    // vectors the row fills (masked, it gathered: a 2x2 max pooling of 32x64x112^2 ran
    // 1.5x slower so), so such a row takes the widest vector that divides it.
    int width = lanes;
    if (*step > 1)
      while (width > 1 && (row.span <= 0 || row.span % width != 0)) width /= 2;
    if (width < 4) return;
    row.vector_width = width;
    for (size_t k = j; k < ids.size(); ++k) job_.loops.at(ids[k]).unroll = -1;
  }

  // How far the accesses below `band` move along their tensors' last dimension when member
  // `i` advances by one (the largest step), or nothing when one moves further than
  // kMaxLaneStep or along another dimension (a row or an image apart).
  static constexpr int kMaxLaneStep = 4;
  std::optional<int64_t> row_step(const isl::schedule_node_band& band, int i) const {
    isl_space* space = isl_schedule_node_band_get_space(band.get());
    isl_set* delta = isl_set_universe(space);
    for (int k = 0, n = int(band.n_member()); k < n; ++k) delta = isl_set_fix_si(delta, isl_dim_set, unsigned(k), k == i ? 1 : 0);
    isl::map advance = isl::manage(isl_set_translation(delta));
    isl::union_set domain = node_domain(band);
    isl::union_map schedule =
        isl::manage(isl_schedule_node_band_get_partial_schedule_union_map(band.get())).intersect_domain(domain);
    isl::union_map next = schedule.apply_range(isl::union_map(advance)).apply_range(schedule.reverse());
    isl::union_map accesses = job_.reads.unite(job_.writes).intersect_domain(domain);
    isl::union_set steps = accesses.reverse().apply_range(next).apply_range(accesses).deltas();
    auto within = [](const isl::set& moves, int step) {
      isl_size dims = isl_set_dim(moves.get(), isl_dim_set);
      isl_set* row = isl_set_universe(isl_set_get_space(moves.get()));
      for (int k = 0; k + 1 < int(dims); ++k) row = isl_set_fix_si(row, isl_dim_set, unsigned(k), 0);
      if (dims > 0) row = isl_set_lower_bound_si(row, isl_dim_set, unsigned(dims - 1), -step);
      if (dims > 0) row = isl_set_upper_bound_si(row, isl_dim_set, unsigned(dims - 1), step);
      return moves.is_subset(isl::manage(row));
    };
    std::optional<int64_t> largest = 0;
    steps.foreach_set([&](isl::set moves) {
      int step = 0;
      while (step <= kMaxLaneStep && !within(moves, step)) ++step;
      if (step > kMaxLaneStep) largest.reset();
      else if (largest) largest = std::max<int64_t>(*largest, step);
    });
    return largest;
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

void mark_cpu_loops(PolyJob& job) { CpuMarker(job).visit(job.schedule.root(), Around{}); }

}  // namespace tcs::poly
