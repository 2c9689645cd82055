#include "loopnest/SplitTotals.h"

#include <algorithm>
#include <bit>
#include <optional>

#include "loopnest/Affine.h"

namespace tcs {
namespace {

// At most this many parts, and a power of two: 2, 4, 8 or 16 threads each take the same
// share.
constexpr int64_t kMaxParts = 16;
// Each part runs at least this many statement instances: a part's accumulators, its
// masked rest and a start of the pool cost about a microsecond, and a sum of 16384 floats
// takes about that on one core.
constexpr int64_t kMinPointsPerPart = 16384;
// The most elements a part keeps of a tensor with indices: a part copies them in and out.
constexpr int64_t kMaxElements = 64;
// A loop whose trip count is not a number (symbolic sizes) counts as this many.
constexpr int64_t kUnknownTrips = int64_t(1) << 20;

int64_t trips(const LoopNode& n) {
  std::optional<int64_t> span = full_span(n);
  return span ? std::max<int64_t>(0, *span / n.stride + 1) : kUnknownTrips;
}

// Statement instances below `n`, every loop at its longest (saturating).
int64_t points(const LoopNode& n) {
  auto sum = [](const std::vector<LoopNode>& nodes) {
    int64_t s = 0;
    for (const LoopNode& c : nodes) s = std::min(kUnknownTrips * kUnknownTrips, s + points(c));
    return s;
  };
  switch (n.kind) {
    case LoopNode::Kind::Call: return 1;
    case LoopNode::Kind::For: {
      int64_t inside = sum(n.children), t = trips(n);
      return inside > 0 && t > kUnknownTrips * kUnknownTrips / inside ? kUnknownTrips * kUnknownTrips : t * inside;
    }
    case LoopNode::Kind::If: return std::max(sum(n.children), sum(n.else_children));
    default: return sum(n.children);
  }
}

// Whether a loop below `n` (or `n`) already has a decision a split would contradict.
bool holds_decisions(const LoopNode& n) {
  if (n.kind == LoopNode::Kind::For &&
      (n.annot.parallel || n.annot.register_tile || n.annot.accumulate_in_registers))
    return true;
  for (const LoopNode& c : n.children)
    if (holds_decisions(c)) return true;
  for (const LoopNode& c : n.else_children)
    if (holds_decisions(c)) return true;
  return false;
}

// init + stride * floor(part * trips / parts), written plainly when parts divide trips.
LExpr part_start(const LExpr& init, int64_t stride, const LExpr& part, const LExpr& trip_count, int64_t parts) {
  using Op = LExpr::Op;
  LExpr share = trip_count.is_int() && trip_count.value % parts == 0
                    ? LExpr::make(Op::Mul, {part, LExpr::integer(trip_count.value / parts)})
                    : LExpr::make(Op::FloorDiv, {LExpr::make(Op::Mul, {part, trip_count}), LExpr::integer(parts)});
  if (stride != 1) share = LExpr::make(Op::Mul, {share, LExpr::integer(stride)});
  return init.is_int() && init.value == 0 ? share : LExpr::make(Op::Add, {init, share});
}

class Splitter {
 public:
  Splitter(const SemaDef& def, const DefShapes& shapes, bool symbolic, LoopNest& nest)
      : def_(def), shapes_(shapes), symbolic_(symbolic), nest_(nest) {}

  // Only loops with no loop around them: a split inside a sequential loop would start the
  // pool once per iteration of it.
  void visit(LoopNode& n) {
    if (n.kind == LoopNode::Kind::For) {
      if (std::optional<Split> s = split_of(n)) split(n, *s);
      return;
    }
    for (LoopNode& c : n.children) visit(c);
    for (LoopNode& c : n.else_children) visit(c);
  }

 private:
  // How loop `n` splits: into how many parts, each keeping how many elements of the output.
  struct Split {
    int64_t parts = 0, elements = 1;
  };
  std::optional<Split> split_of(const LoopNode& n) const {
    std::vector<int> calls = calls_below(n);
    if (calls.empty() || holds_decisions(n)) return std::nullopt;
    for (int c : calls)
      if (c != calls[0]) return std::nullopt;  // one statement only: its output is the only one written
    const PolyStmt& ps = nest_.stmts[size_t(calls[0])];
    const SemaStmt& st = def_.stmts[size_t(ps.source_stmt)];
    // Combined by an associative operation, and not reading its own output: a part's reads
    // would go to its copy (`S(c) += X(n, c) * S(0) where c in 1:C` reads an element the
    // statement does not write).
    if (ps.is_init || !st.reduces() || st.reads(st.lhs_tensor) || def_.tensors[size_t(st.lhs_tensor)].type == ScalarType::Bool)
      return std::nullopt;
    // Into one element, or a few (the three channel means of an image) at sizes that are
    // numbers: each part keeps the whole tensor. Not into a local temporary's buffer,
    // whose layout is not the tensor's.
    Split s;
    if (st.lhs_rank > 0) {
      if (symbolic_) return std::nullopt;
      s.elements = shapes_.tensors[size_t(st.lhs_tensor)].numel();
      if (s.elements > kMaxElements || vector_moves_lhs(n, st.lhs_rank)) return std::nullopt;
    }
    for (const PackSite& p : nest_.packs)
      if (p.tensor == st.lhs_tensor) return std::nullopt;
    s.parts = int64_t(std::bit_floor(uint64_t(std::min({kMaxParts, trips(n), points(n) / kMinPointsPerPart}))));
    if (s.parts < 2) return std::nullopt;
    return s;
  }

  // Whether a vector loop below `n` moves the left-hand element of the calls below it
  // (whose first `lhs_rank` arguments are the left-hand indices). A part's copy is kept in
  // registers only where each access names one element of it: a row of 8 doubles as one
  // vector, loaded, added to and stored again each step, ran 0.16 ms in the output and
  // 0.54 ms in a copy on the stack.
  static bool vector_moves_lhs(const LoopNode& n, int lhs_rank) {
    std::vector<const LoopNode*> vectors;
    return vector_moves_lhs(n, lhs_rank, vectors);
  }
  static bool vector_moves_lhs(const LoopNode& n, int lhs_rank, std::vector<const LoopNode*>& vectors) {
    if (n.kind == LoopNode::Kind::Call) {
      for (int d = 0; d < lhs_rank; ++d)
        if (moves_with(n.args[size_t(d)], vectors)) return true;
      return false;
    }
    bool vector = n.kind == LoopNode::Kind::For && n.annot.vector_width > 0;
    if (vector) vectors.push_back(&n);
    bool moves = false;
    for (const LoopNode& c : n.children) moves = moves || vector_moves_lhs(c, lhs_rank, vectors);
    for (const LoopNode& c : n.else_children) moves = moves || vector_moves_lhs(c, lhs_rank, vectors);
    if (vector) vectors.pop_back();
    return moves;
  }

  void split(LoopNode& n, const Split& s) {
    using Op = LExpr::Op;
    const int64_t parts = s.parts;
    int part_iter = part_iterator();
    LExpr trip_count = LExpr::make(Op::Add, {LExpr::make(Op::Sub, {n.upper, n.init}), LExpr::integer(n.stride)});
    if (n.stride != 1) trip_count = LExpr::make(Op::FloorDiv, {trip_count, LExpr::integer(n.stride)});
    if (std::optional<int64_t> span = constant_span(n.init, n.upper)) trip_count = LExpr::integer(*span / n.stride + 1);
    LoopNode share = std::move(n);  // the loop over this part's iterations
    const LExpr init = share.init, part = LExpr::iter(part_iter);
    if (trip_count.is_int() && trip_count.value % parts != 0 && trip_count.value >= parts * parts) {
      // Parts of a whole number of iterations, the last one shorter: a loop from `start` to
      // min(start + the part's span, the loop's end), which the loops' readers (the tuner's
      // features, full_span) see as a tile of known size. With at least as many iterations
      // a part as parts, the last part is short by fewer iterations than a part runs, and
      // none is empty (17 rows in 16 parts of 2 would leave 7 empty, and one thread of two
      // with 1 row); fewer take the even shares below.
      const int64_t each = (trip_count.value + parts - 1) / parts;
      share.init = part_start(init, share.stride, part, LExpr::integer(each * parts), parts);
      LExpr last = LExpr::make(Op::Add, {share.init, LExpr::integer((each - 1) * share.stride)});
      share.upper = LExpr::make(Op::Min, {last, share.upper});
      return wrap(n, std::move(share), part_iter, s);
    }
    const LExpr next = LExpr::make(Op::Add, {part, LExpr::integer(1)});
    share.init = part_start(init, share.stride, part, trip_count, parts);
    share.upper = LExpr::make(Op::Sub, {part_start(init, share.stride, next, trip_count, parts), LExpr::integer(share.stride)});
    wrap(n, std::move(share), part_iter, s);
  }

  // `n` becomes the parallel loop over the parts, around `share`.
  static void wrap(LoopNode& n, LoopNode share, int part_iter, const Split& s) {
    LoopNode loop;
    loop.kind = LoopNode::Kind::For;
    loop.iter = part_iter;
    loop.init = LExpr::integer(0);
    loop.upper = LExpr::integer(s.parts - 1);
    loop.loop_id = share.loop_id;
    loop.annot.parallel = true;
    loop.annot.partial_totals = s.elements;
    loop.children.push_back(std::move(share));
    n = std::move(loop);
  }

  // One iterator serves every split loop: none is inside another.
  int part_iterator() {
    const std::string name = "tcs_part";
    for (size_t i = 0; i < nest_.iter_names.size(); ++i)
      if (nest_.iter_names[i] == name) return int(i);
    nest_.iter_names.push_back(name);
    return int(nest_.iter_names.size() - 1);
  }

  const SemaDef& def_;
  const DefShapes& shapes_;
  const bool symbolic_;
  LoopNest& nest_;
};

}  // namespace

void split_totals(const SemaDef& def, const DefShapes& shapes, bool symbolic_sizes, LoopNest& nest,
                  const MappingOptions& options) {
  if (options.cpu.parallel) Splitter(def, shapes, symbolic_sizes, nest).visit(nest.root);  // a kernel-wide option
}

}  // namespace tcs
