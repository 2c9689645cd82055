#include "runtime/RandomInputs.h"

#include <algorithm>
#include <optional>
#include <random>

#include "lang/Builtins.h"
#include "support/IntDiv.h"

namespace tcs {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;

struct InputUse {
  bool positive = false;            // read under sqrt/log/pow or as a divisor
  bool subscript = false;           // used directly as a subscript
  int64_t lo = INT64_MIN, hi = INT64_MAX;  // intersection of the bounds it indexes
};

bool needs_positive(const Builtin& b) {
  static constexpr std::string_view names[] = {"sqrt", "rsqrt", "log", "log2", "log10", "log1p",
                                               "lgamma", "tgamma", "pow", "acosh", "rcbrt"};
  return std::find(std::begin(names), std::end(names), b.name) != std::end(names);
}

struct Interval {
  int64_t lo = 0, hi = 0;
};

// The range of an integer expression without tensor reads over the statement's index
// ranges (literals, indices, sizes, +, -, *); nullopt for anything else.
std::optional<Interval> range_of(const Expr& e, const SemaDef& def, const DefShapes& shapes, const std::vector<IndexRange>& idx) {
  switch (e.kind) {
    case ExprKind::IntLiteral: return Interval{e.int_value, e.int_value};
    case ExprKind::Name:
      if (e.ref == NameRef::Index && e.ref_id >= 0 && size_t(e.ref_id) < idx.size())
        return Interval{idx[size_t(e.ref_id)].lo, idx[size_t(e.ref_id)].hi};
      if (e.ref == NameRef::SizeParam) {
        int64_t v = shapes.sizes.at(def.size_params[size_t(e.ref_id)]);
        return Interval{v, v};
      }
      return std::nullopt;
    case ExprKind::Cast: return range_of(*e.args[0], def, shapes, idx);
    case ExprKind::Unary:
      if (e.op != TokenKind::Minus) return std::nullopt;
      if (auto x = range_of(*e.args[0], def, shapes, idx)) return Interval{-x->hi, -x->lo};
      return std::nullopt;
    case ExprKind::Binary: {
      auto a = range_of(*e.args[0], def, shapes, idx), b = range_of(*e.args[1], def, shapes, idx);
      if (!a || !b) return std::nullopt;
      if (e.op == TokenKind::Plus) return Interval{a->lo + b->lo, a->hi + b->hi};
      if (e.op == TokenKind::Minus) return Interval{a->lo - b->hi, a->hi - b->lo};
      if (e.op == TokenKind::Star) {
        int64_t c[] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi};
        return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// A subscript of the form a * R + b: R a tensor read (through integer casts), a a nonzero
// constant, b free of reads, with its range.
struct LinearRead {
  const Expr* read = nullptr;
  int64_t a = 1;
  Interval b;
};

std::optional<LinearRead> linear_read(const Expr& e, const SemaDef& def, const DefShapes& shapes,
                                      const std::vector<IndexRange>& idx) {
  if (e.kind == ExprKind::Cast) return linear_read(*e.args[0], def, shapes, idx);
  if (e.ref == NameRef::Tensor) return LinearRead{&e, 1, {0, 0}};
  if (e.kind != ExprKind::Binary) return std::nullopt;
  const Expr &l = *e.args[0], &r = *e.args[1];
  auto lin_l = linear_read(l, def, shapes, idx), lin_r = linear_read(r, def, shapes, idx);
  auto rng_l = range_of(l, def, shapes, idx), rng_r = range_of(r, def, shapes, idx);
  if (e.op == TokenKind::Plus) {
    if (lin_l && rng_r) return LinearRead{lin_l->read, lin_l->a, {lin_l->b.lo + rng_r->lo, lin_l->b.hi + rng_r->hi}};
    if (lin_r && rng_l) return LinearRead{lin_r->read, lin_r->a, {lin_r->b.lo + rng_l->lo, lin_r->b.hi + rng_l->hi}};
  }
  if (e.op == TokenKind::Minus) {
    if (lin_l && rng_r) return LinearRead{lin_l->read, lin_l->a, {lin_l->b.lo - rng_r->hi, lin_l->b.hi - rng_r->lo}};
    if (lin_r && rng_l) return LinearRead{lin_r->read, -lin_r->a, {rng_l->lo - lin_r->b.hi, rng_l->hi - lin_r->b.lo}};
  }
  if (e.op == TokenKind::Star) {
    auto scale = [](LinearRead x, int64_t c) -> std::optional<LinearRead> {
      if (c == 0) return std::nullopt;
      Interval b = c > 0 ? Interval{x.b.lo * c, x.b.hi * c} : Interval{x.b.hi * c, x.b.lo * c};
      return LinearRead{x.read, x.a * c, b};
    };
    if (lin_l && rng_r && rng_r->lo == rng_r->hi) return scale(*lin_l, rng_r->lo);
    if (lin_r && rng_l && rng_l->lo == rng_l->hi) return scale(*lin_r, rng_l->lo);
  }
  return std::nullopt;
}

bool reads_a_tensor(const Expr& e) {
  if (e.ref == NameRef::Tensor) return true;
  for (const auto& a : e.args)
    if (reads_a_tensor(*a)) return true;
  return false;
}

struct ScanContext {
  const SemaDef& def;
  const DefShapes& shapes;
  const std::vector<IndexRange>& idx;
  std::vector<InputUse>& uses;
  std::string problem;  // a data-dependent subscript random values cannot keep in range
};

void scan(const Expr& e, bool positive, ScanContext& cx) {
  if (e.ref == NameRef::Tensor && e.ref_id >= 0) {
    InputUse& u = cx.uses[size_t(e.ref_id)];
    u.positive |= positive;
    const TensorShape& sh = cx.shapes.tensors[size_t(e.ref_id)];
    for (size_t d = 0; d < e.args.size() && d < sh.extent.size(); ++d) {
      if (!reads_a_tensor(*e.args[d])) continue;
      auto lin = linear_read(*e.args[d], cx.def, cx.shapes, cx.idx);
      if (!lin || lin->read->ref_id < 0) {
        if (cx.problem.empty())
          cx.problem = "subscript " + std::to_string(d) + " of '" + e.name + "' combines tensor reads in a way --random " +
                       "cannot keep in range; supply the index tensors with --input";
        continue;
      }
      // L <= a*R + b <= H for every b in [b.lo, b.hi].
      int64_t L = sh.min[d], H = sh.min[d] + sh.extent[d] - 1, a = lin->a;
      int64_t lo = a > 0 ? ceil_div(L - lin->b.lo, a) : ceil_div(H - lin->b.hi, a);
      int64_t hi = a > 0 ? floor_div(H - lin->b.hi, a) : floor_div(L - lin->b.lo, a);
      InputUse& sub = cx.uses[size_t(lin->read->ref_id)];
      sub.subscript = true;
      sub.lo = std::max(sub.lo, lo);
      sub.hi = std::min(sub.hi, hi);
    }
  }
  bool child_positive = positive;
  if (e.ref == NameRef::Builtin && needs_positive(builtins()[size_t(e.ref_id)])) child_positive = true;
  for (size_t i = 0; i < e.args.size(); ++i) {
    bool p = child_positive;
    if (e.kind == ExprKind::Binary && e.op == TokenKind::Slash && i == 1) p = true;
    if (e.ref == NameRef::Builtin && builtins()[size_t(e.ref_id)].name == "pow" && i == 1) p = positive;
    scan(*e.args[i], p, cx);
  }
}

}  // namespace

Expected<TensorMap> random_inputs(const SemaDef& def, const DefShapes& shapes, uint64_t seed,
                                  const TensorMap& already_supplied) {
  std::vector<InputUse> uses(def.tensors.size());
  for (size_t s = 0; s < def.stmts.size(); ++s) {
    ScanContext cx{def, shapes, shapes.stmts[s], uses, {}};
    scan(*def.stmts[s].ast->rhs, false, cx);
    for (const ast::WhereClause& c : def.stmts[s].ast->where)
      if (c.kind == ast::WhereClause::Exists) scan(*c.value, false, cx);
    if (!cx.problem.empty()) return Error{ErrorKind::Sizes, "statement " + std::to_string(s + 1) + " of '" + def.name + "': " + cx.problem};
  }
  TensorMap out;
  std::mt19937_64 rng(seed);
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    const SemaTensor& T = def.tensors[t];
    if (T.role != TensorRole::Input || already_supplied.count(T.name)) continue;
    auto z = Tensor::zeros(T.type, shapes.tensors[t].extent);
    if (!z) return error_prefixed(z.failure(), "cannot allocate input '" + T.name + "': ");
    Tensor& x = *z;
    const InputUse& u = uses[t];
    int64_t n = x.numel();
    if (T.type == ScalarType::Bool) {
      std::bernoulli_distribution d(0.5);
      for (int64_t i = 0; i < n; ++i) x.set_from_double(i, d(rng));
    } else if (scalar_type_is_float(T.type)) {
      std::uniform_real_distribution<double> d(u.positive ? 0.5 : -1.0, u.positive ? 1.5 : 1.0);
      for (int64_t i = 0; i < n; ++i) x.set_from_double(i, d(rng));
    } else {
      int64_t lo = 0, hi = 9;  // small values keep integer products far from overflow
      if (scalar_type_is_signed(T.type) && !u.positive) lo = -9;
      if (u.positive) lo = 1;
      if (u.subscript) {
        if (u.lo > u.hi)
          return Error{ErrorKind::Sizes, "input '" + T.name + "' is used in subscripts whose ranges do not overlap at these sizes"};
        lo = u.lo, hi = u.hi;
      }
      std::uniform_int_distribution<int64_t> d(lo, hi);
      for (int64_t i = 0; i < n; ++i) x.set_from_double(i, double(d(rng)));
    }
    out[T.name] = std::move(x);
  }
  return out;
}

}  // namespace tcs
