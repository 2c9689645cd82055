#include "runtime/RandomInputs.h"

#include <algorithm>
#include <random>

#include "lang/Builtins.h"

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

// The tensor read that a subscript consists of, looking through integer casts.
const Expr* direct_read(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == ExprKind::Cast) x = x->args[0].get();
  return x->ref == NameRef::Tensor ? x : nullptr;
}

void scan(const Expr& e, bool positive, const SemaDef& def, const DefShapes& shapes, std::vector<InputUse>& uses) {
  if (e.ref == NameRef::Tensor && e.ref_id >= 0) {
    InputUse& u = uses[size_t(e.ref_id)];
    u.positive |= positive;
    const TensorShape& sh = shapes.tensors[size_t(e.ref_id)];
    for (size_t d = 0; d < e.args.size() && d < sh.extent.size(); ++d) {
      if (const Expr* r = direct_read(*e.args[d])) {
        InputUse& sub = uses[size_t(r->ref_id)];
        sub.subscript = true;
        sub.lo = std::max(sub.lo, sh.min[d]);
        sub.hi = std::min(sub.hi, sh.min[d] + sh.extent[d] - 1);
      }
    }
  }
  bool child_positive = positive;
  if (e.ref == NameRef::Builtin && needs_positive(builtins()[size_t(e.ref_id)])) child_positive = true;
  for (size_t i = 0; i < e.args.size(); ++i) {
    bool p = child_positive;
    if (e.kind == ExprKind::Binary && e.op == TokenKind::Slash && i == 1) p = true;
    if (e.ref == NameRef::Builtin && builtins()[size_t(e.ref_id)].name == "pow" && i == 1) p = positive;
    scan(*e.args[i], p, def, shapes, uses);
  }
  (void)def;
}

}  // namespace

Expected<TensorMap> random_inputs(const SemaDef& def, const DefShapes& shapes, uint64_t seed,
                                  const TensorMap& already_supplied) {
  std::vector<InputUse> uses(def.tensors.size());
  for (const SemaStmt& s : def.stmts) {
    scan(*s.ast->rhs, false, def, shapes, uses);
    for (const ast::WhereClause& c : s.ast->where)
      if (c.kind == ast::WhereClause::Exists) scan(*c.value, false, def, shapes, uses);
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
        if (u.lo > u.hi) return Error{ErrorKind::Sizes, "input '" + T.name + "' is used as a subscript of dimensions that do not overlap"};
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
