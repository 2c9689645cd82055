#include "loopnest/ShortRows.h"

#include <algorithm>

#include "loopnest/Affine.h"

namespace tcs {
namespace {

// A row of up to this many bytes of floats (or a narrower type) takes the widest vector
// along the summed loop (3 floats: 0.045 ms; 6: 0.085, where LLVM's own choice was 0.16).
// Up to kMaxUnrolledRowBytes, and doubles, LLVM chooses the width (3 doubles 2.6 → 0.09
// ms, where the widest cost 0.24; 10 floats 0.79 → 0.59). Wider rows keep the masked
// vector (15 floats: 0.53 ms masked, 0.61-0.67 unrolled), and so does a row of whole
// registers, which is not masked (8 doubles at 16 float lanes: 0.16 ms, 0.45 unrolled).
constexpr int64_t kMaxWidestRowBytes = 24;
constexpr int64_t kMaxUnrolledRowBytes = 48;

class RowUnroller {
 public:
  RowUnroller(const SemaDef& def, LoopNest& nest) : def_(def), nest_(nest) {
    for (const SemaTensor& t : def.tensors) widest_ = std::max<int64_t>(widest_, int64_t(scalar_type_bytes(t.type)));
  }

  void visit(LoopNode& n) {
    if (n.kind == LoopNode::Kind::For && n.children.size() == 1) try_row(n, n.children[0]);
    for (LoopNode& c : n.children) visit(c);
    for (LoopNode& c : n.else_children) visit(c);
  }

 private:
  void try_row(LoopNode& sum, LoopNode& row) {
    const LoopAnnotation& s = sum.annot;
    if (s.parallel || s.vector_width != 0 || s.unroll != 0 || s.register_tile || s.accumulate_in_registers ||
        s.partial_totals)
      return;
    const int lanes = row.annot.vector_width;
    if (row.kind != LoopNode::Kind::For || lanes < 2 || row.annot.reduction || row.annot.register_tile || row.stride != 1 ||
        !row.init.is_int() || !row.upper.is_int() || row.children.empty())
      return;
    const int64_t trips = row.upper.value - row.init.value + 1;
    if (trips < 2 || trips >= lanes) return;
    // The loop around is long (not a pooling window of 3), or its length is not a number.
    if (std::optional<int64_t> span = full_span(sum); span && *span / sum.stride + 1 < lanes) return;
    // Every statement in the row reduces into elements the row moves along and the loop
    // around does not: that loop carries the row's sums.
    for (const LoopNode& call : row.children) {
      if (call.kind != LoopNode::Kind::Call) return;
      const PolyStmt& ps = nest_.stmts[size_t(call.stmt)];
      const SemaStmt& st = def_.stmts[size_t(ps.source_stmt)];
      if (ps.is_init || !st.reduces()) return;
      bool along_row = false;
      for (int d = 0; d < st.lhs_rank; ++d) {
        if (moves_with(call.args[size_t(d)], {&sum})) return;
        along_row = along_row || moves_with(call.args[size_t(d)], {&row});
      }
      if (!along_row) return;
    }
    const int64_t row_bytes = trips * widest_;
    if (row_bytes > kMaxUnrolledRowBytes || row_bytes % (int64_t(lanes) * 4) == 0) return;  // widths count floats
    row.annot.vector_width = 0;
    row.annot.unroll = -1;
    if (widest_ <= 4 && row_bytes <= kMaxWidestRowBytes) {
      sum.annot.vector_width = lanes;
      sum.annot.reduction = true;
    }
  }

  const SemaDef& def_;
  LoopNest& nest_;
  int64_t widest_ = 1;  // bytes of the def's widest element type
};

}  // namespace

void unroll_short_rows(const SemaDef& def, LoopNest& nest) { RowUnroller(def, nest).visit(nest.root); }

}  // namespace tcs
