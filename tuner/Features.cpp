#include "tuner/Features.h"

#include <cmath>
#include <cstdlib>

#include "loopnest/Accesses.h"
#include "loopnest/Affine.h"

namespace tcs::tuner {

namespace {

constexpr int kAccessSlots = 4;  // the write and the first three reads (most kernels touch <= 4 tensors)

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v = {"iterations",         "depth",          "inner_trip",       "vector_width",
                                  "vector_reduction",   "unroll",         "parallel_trip",    "register_tile_points",
                                  "register_accumulate", "packs",         "packed_bytes",     "local_bytes",
                                  "is_init",            "reads",          "bytes_touched",    "intensity"};
    for (int a = 0; a < kAccessSlots; ++a)
      for (const char* f : {"present", "inner_stride", "outer_stride", "contiguous", "reuse", "packed", "bytes"})
        v.push_back("access" + std::to_string(a) + "_" + f);
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
        return s ? double(std::llabs(*s)) : double(1 << 20);
      };
      double reuse = 1;
      for (size_t i = 0; i < a.strides.size() && i < loops_.size(); ++i)
        if (a.strides[i].elements && *a.strides[i].elements == 0) reuse *= loops_[i].trip;
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
    for (double v : f) out_.data.push_back(squash(v));
    ++out_.rows;
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
