#include "tuner/Features.h"

#include <cassert>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "loopnest/Accesses.h"
#include "loopnest/Affine.h"

namespace tcs::tuner {

namespace {

constexpr int kAccessSlots = 4;  // the write and the first three reads (most kernels touch <= 4 tensors)
constexpr int kInnerLoops = 6;   // the innermost loops described one by one, innermost first
constexpr double kLineBytes = 64;

// How far an address moves per iteration of a loop, in elements: a step the access view
// could not state (not affine in that loop) counts as a far one.
double step_of(const std::optional<int64_t>& elements) { return elements ? double(std::llabs(*elements)) : double(1 << 20); }

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v = {"iterations",         "depth",          "inner_trip",       "vector_width",
                                  "vector_reduction",   "unroll",         "parallel_trip",    "register_tile_points",
                                  "register_accumulate", "packs",         "packed_bytes",     "local_bytes",
                                  "is_init",            "reads",          "bytes_touched",    "intensity"};
    for (int a = 0; a < kAccessSlots; ++a)
      for (const char* f : {"present", "inner_stride", "outer_stride", "contiguous", "reuse", "packed", "bytes"})
        v.push_back("access" + std::to_string(a) + "_" + f);
    // Version 2: what the order of the loops does to the caches. Without these, candidates
    // that differ only in loop order or in how a reduction is tiled had equal rows (56
    // distinct rows in 200 conv trials, 68 in 200 of matmul).
    v.push_back("accumulators");
    for (int l = 0; l < kInnerLoops; ++l) {
      v.push_back("loop" + std::to_string(l) + "_trip");
      v.push_back("loop" + std::to_string(l) + "_reduces");
    }
    for (int a = 0; a < kAccessSlots; ++a)
      for (const char* f : {"reuse_count", "reuse_iterations", "reuse_bytes"})
        v.push_back("access" + std::to_string(a) + "_" + f);
    for (int a = 0; a < kAccessSlots; ++a)
      for (int l = 0; l < kInnerLoops; ++l) v.push_back("access" + std::to_string(a) + "_loop" + std::to_string(l) + "_stride");
    // Version 3: how many iterations ahead an enclosing loop fetches the reads (cpu.fetchAhead).
    v.push_back("fetch_ahead");
    // Version 4: the statement writes an output that cpu.streamStores stores past the caches.
    // Version 5: a total's parts loop (LoopAnnotation::partial_totals) carries no reuse.
    v.push_back("streams_output");
    return v;
  }();
  return n;
}

float squash(double x) { return float(std::copysign(std::log2(1 + std::fabs(x)), x)); }

struct Loop {
  int loop_id;
  double trip;
  LoopAnnotation annot;
};

class Walker {
 public:
  Walker(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest)
      : def_(def), shapes_(shapes), nest_(nest), accesses_(loop_nest_accesses(def, shapes, nest)) {}

  FeatureRows run() {
    walk(nest_.root);
    return std::move(out_);
  }

 private:
  static double trip_of(const LoopNode& n) {
    std::optional<int64_t> span = constant_span(n.init, n.upper);
    if (!span)
      if (auto t = split_tile_bound(n.init, n.upper)) span = t->span;
    if (!span) return 8;  // a bound that moves with outer loops: a typical tile
    return double(std::max<int64_t>(0, *span) / std::max<int64_t>(1, n.stride) + 1);
  }

  void walk(const LoopNode& n) {
    if (n.kind == LoopNode::Kind::For) loops_.push_back({n.loop_id, trip_of(n), n.annot});
    if (n.kind == LoopNode::Kind::Pack) packs_.push_back(n.pack);
    if (n.kind == LoopNode::Kind::Call) row(n);
    for (const LoopNode& c : n.children) walk(c);
    for (const LoopNode& c : n.else_children) walk(c);
    if (n.kind == LoopNode::Kind::For) loops_.pop_back();
    if (n.kind == LoopNode::Kind::Pack) packs_.pop_back();
  }

  // Whether access `a` stays put along enclosing loop `i`. A total's parts loop moves every
  // access through its share's bounds, though no subscript names its iterator.
  bool stays(const TensorAccess& a, size_t i) const {
    return a.strides[i].elements == std::optional<int64_t>(0) && loops_[i].annot.partial_totals == 0;
  }

  double tensor_bytes(int t) const {
    return double(shapes_.tensors[size_t(t)].numel()) * double(scalar_type_bytes(def_.tensors[size_t(t)].type));
  }

  void row(const LoopNode& call) {
    const StatementAccesses& acc = accesses_[size_t(next_++)];
    std::vector<double> f(names().size(), 0.0);
    double iterations = 1, unroll = 1, parallel = 0, reg_points = 1;
    bool accumulate = false;
    for (const Loop& l : loops_) {
      iterations *= l.trip;
      unroll *= l.annot.unroll < 0 ? l.trip : std::max(1, l.annot.unroll);
      if (l.annot.parallel && parallel == 0) parallel = l.trip;
      if (l.annot.register_tile) reg_points *= l.trip;
      accumulate = accumulate || l.annot.accumulate_in_registers;
    }
    const Loop* inner = loops_.empty() ? nullptr : &loops_.back();
    double packed = 0, local = 0;
    for (int p : packs_) {
      const PackSite& s = nest_.packs[size_t(p)];
      (s.local ? local : packed) += double(s.numel()) * double(scalar_type_bytes(def_.tensors[size_t(s.tensor)].type));
    }
    double touched = 0;
    for (const TensorAccess& a : acc.accesses) touched += tensor_bytes(a.tensor);
    f[0] = iterations;
    f[1] = double(loops_.size());
    f[2] = inner ? inner->trip : 1;
    f[3] = inner ? inner->annot.vector_width : 0;
    f[4] = inner && inner->annot.vector_width > 0 && inner->annot.reduction;
    f[5] = unroll;
    f[6] = parallel;
    f[7] = reg_points;
    f[8] = accumulate;
    f[9] = double(packs_.size());
    f[10] = packed;
    f[11] = local;
    f[12] = nest_.stmts[size_t(call.stmt)].is_init;
    f[13] = double(acc.accesses.size()) - 1;
    f[14] = touched;
    f[15] = touched > 0 ? iterations * double(acc.accesses.size()) / touched : 0;
    for (int slot = 0; slot < kAccessSlots && slot < int(acc.accesses.size()); ++slot) {
      const TensorAccess& a = acc.accesses[size_t(slot)];
      size_t base = 16 + size_t(slot) * 7;
      auto stride_at = [&](size_t from_inner) -> double {
        if (a.strides.size() <= from_inner) return 0;
        const auto& s = a.strides[a.strides.size() - 1 - from_inner].elements;
        return step_of(s);
      };
      double reuse = 1;
      for (size_t i = 0; i < a.strides.size() && i < loops_.size(); ++i)
        if (stays(a, i)) reuse *= loops_[i].trip;
      bool in_pack = false;
      for (int p : packs_) in_pack = in_pack || nest_.packs[size_t(p)].tensor == a.tensor;
      f[base] = 1;
      f[base + 1] = stride_at(0);
      f[base + 2] = stride_at(1);
      f[base + 3] = stride_at(0) <= 1;
      f[base + 4] = reuse;
      f[base + 5] = in_pack;
      f[base + 6] = tensor_bytes(a.tensor);
    }
    size_t at = 16 + size_t(kAccessSlots) * 7;
    f[at++] = accumulate && inner && inner->annot.vector_width > 0 ? reg_points / inner->annot.vector_width : 0;
    // The innermost loops, innermost first: trip, and whether the write stays put (a loop
    // over a summed index).
    const TensorAccess* write = acc.accesses.empty() ? nullptr : &acc.accesses[0];
    for (int l = 0; l < kInnerLoops; ++l, at += 2) {
      if (l >= int(loops_.size())) continue;
      size_t i = loops_.size() - 1 - size_t(l);
      f[at] = loops_[i].trip;
      f[at + 1] = write && i < write->strides.size() && stays(*write, i);
    }
    // Per access, Ansor's reuse: the innermost loop along which its address stays put
    // carries the reuse; how often it is reused, how many iterations apart, and how many
    // bytes the statement touches in between (whether the reused line is still cached).
    for (int slot = 0; slot < kAccessSlots; ++slot, at += 3) {
      if (slot >= int(acc.accesses.size())) continue;
      const TensorAccess& a = acc.accesses[size_t(slot)];
      int carrier = -1;
      for (size_t i = 0; i < a.strides.size() && i < loops_.size(); ++i)
        if (stays(a, i)) carrier = int(i);
      if (carrier < 0) continue;
      double between = 1, bytes = 0;
      for (size_t j = size_t(carrier) + 1; j < loops_.size(); ++j) between *= loops_[j].trip;
      for (const TensorAccess& b : acc.accesses) bytes += lines_touched(b, size_t(carrier) + 1) * kLineBytes;
      f[at] = loops_[size_t(carrier)].trip;
      f[at + 1] = between;
      f[at + 2] = bytes;
    }
    // Per access, how far its address moves along each of the innermost loops (elements;
    // whether a row is read along or across the loops that run most often).
    for (int slot = 0; slot < kAccessSlots; ++slot)
      for (int l = 0; l < kInnerLoops; ++l, ++at) {
        if (slot >= int(acc.accesses.size()) || l >= int(loops_.size())) continue;
        const TensorAccess& a = acc.accesses[size_t(slot)];
        size_t i = loops_.size() - 1 - size_t(l);
        if (i < a.strides.size()) f[at] = step_of(a.strides[i].elements);
      }
    for (const Loop& l : loops_) f[at] = std::max(f[at], double(l.annot.fetch_ahead));
    ++at;
    f[at++] = nest_.stream_outputs && !acc.accesses.empty() && acc.accesses.front().write &&
              def_.tensors[size_t(acc.accesses.front().tensor)].role == TensorRole::Output;
    assert(at == f.size());
    for (double v : f) out_.data.push_back(squash(v));
    ++out_.rows;
  }

  // Distinct cache lines access `a` touches while the loops from `level` inward run: the
  // loop with the smallest stride spans (trip - 1) * stride + 1 elements, which fill that
  // many lines but never more than its trip; every other loop that moves the address
  // multiplies them; at most the whole tensor.
  double lines_touched(const TensorAccess& a, size_t level) const {
    double elem = double(scalar_type_bytes(def_.tensors[size_t(a.tensor)].type)), lines = 1;
    int fastest = -1;
    int64_t smallest = 0;
    for (size_t j = level; j < a.strides.size() && j < loops_.size(); ++j) {
      const std::optional<int64_t>& s = a.strides[j].elements;
      if (s == 0) continue;
      int64_t step = int64_t(step_of(s));
      if (fastest < 0 || step < smallest) fastest = int(j), smallest = step;
    }
    for (size_t j = level; j < a.strides.size() && j < loops_.size(); ++j) {
      const std::optional<int64_t>& s = a.strides[j].elements;
      if (s == 0) continue;
      if (int(j) == fastest)
        lines *= std::min(loops_[j].trip, std::ceil(((loops_[j].trip - 1) * double(smallest) + 1) * elem / kLineBytes));
      else lines *= loops_[j].trip;
    }
    return std::min(lines, std::ceil(tensor_bytes(a.tensor) / kLineBytes));
  }

  const SemaDef& def_;
  const DefShapes& shapes_;
  const LoopNest& nest_;
  std::vector<StatementAccesses> accesses_;
  std::vector<Loop> loops_;
  std::vector<int> packs_;
  int next_ = 0;
  FeatureRows out_;
};

}  // namespace

int feature_count() { return int(names().size()); }
const std::vector<std::string>& feature_names() { return names(); }

FeatureRows extract_features(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest) {
  return Walker(def, shapes, nest).run();
}

}  // namespace tcs::tuner
