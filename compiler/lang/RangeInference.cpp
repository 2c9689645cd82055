#include "lang/RangeInference.h"

#include <algorithm>

#include "lang/Linear.h"

namespace tcs {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;

// A read under a condition that bounds an index, and the bounds it gives.
struct Narrowing {
  const AccessConstraint* c;
  SymExpr lo, hi;
};

class StmtRanges {
 public:
  StmtRanges(const SemaDef& def, SemaStmt& s, const SourceFile& file, Diagnostics& diags)
      : def_(def), s_(s), file_(file), diags_(diags) {}

  bool run() {
    collect();
    solve_rounds();
    if (!report_unsolved()) return false;
    check_leftovers();
    return true;
  }

 private:
  void add_access(const Expr& e, bool guarded) {
    const SemaTensor& T = def_.tensors[size_t(e.ref_id)];
    if (!T.shape_known) return;
    for (size_t d = 0; d < e.args.size() && int(d) < T.rank(); ++d) {
      const Expr& sub = *e.args[d];
      Linear l = linearize(sub);
      AccessConstraint c;
      c.tensor = e.ref_id;
      c.dim = int(d);
      c.subscript = &sub;
      c.range = sub.range;
      c.affine = l.affine;
      c.data_dependent = l.data_dependent;
      c.guarded = guarded;
      c.rest = l.rest;
      c.indices = l.indices;
      for (auto [ix, co] : l.coefs) c.coefs.push_back({ix, co});
      s_.constraints.push_back(std::move(c));
    }
  }

  void collect_reads(const Expr& e, bool guarded = false) {
    if ((e.kind == ExprKind::Access || e.kind == ExprKind::Name) && e.ref == NameRef::Tensor) add_access(e, guarded);
    bool lazy = e.kind == ExprKind::Ternary ||
                (e.kind == ExprKind::Binary && (e.op == TokenKind::AndAnd || e.op == TokenKind::OrOr));
    for (size_t i = 0; i < e.args.size(); ++i) collect_reads(*e.args[i], guarded || (lazy && i > 0));
  }

  // The indices a condition names: of '?:' or left of '&&' / '||'.
  void collect_conditions(const Expr& e) {
    auto names = [&](auto& self, const Expr& x) -> void {
      if (x.kind == ExprKind::Name && x.ref == NameRef::Index) in_conditions_.push_back(x.ref_id);
      for (const auto& a : x.args) self(self, *a);
    };
    bool lazy = e.kind == ExprKind::Ternary ||
                (e.kind == ExprKind::Binary && (e.op == TokenKind::AndAnd || e.op == TokenKind::OrOr));
    if (lazy) names(names, *e.args[0]);
    for (const auto& a : e.args) collect_conditions(*a);
  }

  void collect() {
    collect_reads(*s_.ast->rhs);
    collect_conditions(*s_.ast->rhs);
    for (const ast::WhereClause& c : s_.ast->where)
      if (c.kind == ast::WhereClause::Exists) collect_reads(*c.value);
    // The left-hand side of a tensor whose shape is already known (declared, or defined by
    // an earlier statement) bounds its indices too; for op= this is also the implicit read.
    const SemaTensor& T = def_.tensors[size_t(s_.lhs_tensor)];
    if (T.shape_known && T.rank() == s_.lhs_rank) {
      for (int d = 0; d < s_.lhs_rank; ++d) {
        AccessConstraint c;
        c.tensor = s_.lhs_tensor;
        c.dim = d;
        c.range = s_.ast->lhs_indices[size_t(d)].range;
        c.affine = true;
        c.coefs = {{d, 1}};
        c.indices = {d};
        s_.constraints.push_back(std::move(c));
      }
    }
  }

  int unsolved_count(const AccessConstraint& c, int* which) const {
    int n = 0;
    for (int ix : c.indices)
      if (!s_.indices[size_t(ix)].solved) { ++n; *which = ix; }
    return n;
  }

  // Solves index v from one constraint lo_d <= a*v + R <= hi_d, R over solved indices.
  std::pair<SymExpr, SymExpr> solve_one(const AccessConstraint& c, int v) const {
    int64_t a = 0;
    SymExpr r_lo = c.rest, r_hi = c.rest;
    for (auto [ix, co] : c.coefs) {
      if (ix == v) { a = co; continue; }
      const SemaIndex& u = s_.indices[size_t(ix)];
      r_lo = r_lo + (co > 0 ? u.lo : u.hi) * SymExpr(co);
      r_hi = r_hi + (co > 0 ? u.hi : u.lo) * SymExpr(co);
    }
    const SemaTensor& T = def_.tensors[size_t(c.tensor)];
    const SymExpr& L = T.lo[size_t(c.dim)];
    const SymExpr& H = T.hi[size_t(c.dim)];
    if (a > 0) return {SymExpr::ceildiv(L - r_lo, a), SymExpr::floordiv(H - r_hi, a)};
    int64_t b = -a;
    return {SymExpr::ceildiv(r_hi - H, b), SymExpr::floordiv(r_lo - L, b)};
  }

  void solve_rounds() {
    while (true) {
      std::vector<std::pair<int, std::pair<SymExpr, SymExpr>>> solved_now;
      for (size_t v = 0; v < s_.indices.size(); ++v) {
        if (s_.indices[v].solved) continue;
        std::optional<SymExpr> lo, hi, plain_lo, plain_hi;
        std::vector<Narrowing> guarded;
        auto meet = [](std::optional<SymExpr>& a, std::optional<SymExpr>& b, const SymExpr& l, const SymExpr& h) {
          a = a ? SymExpr::max(*a, l) : l;
          b = b ? SymExpr::min(*b, h) : h;
        };
        for (AccessConstraint& c : s_.constraints) {
          int which = -1;
          if (!c.affine || unsolved_count(c, &which) != 1 || which != int(v)) continue;
          if (std::none_of(c.coefs.begin(), c.coefs.end(), [&](auto p) { return p.first == int(v); })) continue;
          auto [clo, chi] = solve_one(c, int(v));
          meet(lo, hi, clo, chi);
          // A read under a condition that names the index alone (a weight's W(kh)) bounds
          // it as any read does; one that shifts it (I(y + kh - 1)) may be what the
          // condition was written to skip.
          bool alone = c.coefs.size() == 1 && c.coefs[0].second == 1 && c.rest == SymExpr(0);
          if (c.guarded && !alone) guarded.push_back({&c, clo, chi});
          else meet(plain_lo, plain_hi, clo, chi);
          c.used_to_solve = true;
        }
        if (lo) {
          warn_if_narrowed(int(v), guarded, plain_lo, plain_hi, *lo, *hi);
          solved_now.push_back({int(v), {*lo, *hi}});
        }
      }
      if (solved_now.empty()) return;
      for (auto& [v, iv] : solved_now) {
        SemaIndex& ix = s_.indices[size_t(v)];
        ix.solved = true;
        ix.lo = iv.first;
        ix.hi = iv.second;
      }
    }
  }

  // Reads in a branch of '?:' (or right of '&&', '||') bound ranges too (LANGUAGE.md §4),
  // which surprises whoever wrote the branch's guard to skip the values outside: a padded
  // convolution without `where` clauses for its taps sums only the middle one. Says so,
  // for an index a condition names, when such a read narrows what the other reads allow
  // or alone bounds the index.
  void warn_if_narrowed(int v, const std::vector<Narrowing>& guarded, const std::optional<SymExpr>& plain_lo,
                        const std::optional<SymExpr>& plain_hi, const SymExpr& lo, const SymExpr& hi) {
    if (guarded.empty() || std::find(in_conditions_.begin(), in_conditions_.end(), v) == in_conditions_.end()) return;
    const std::string& name = s_.indices[size_t(v)].name;
    std::string range = "[" + lo.str() + ", " + hi.str() + "]";
    // A concrete `where` when the bounds print as size expressions the language reads
    // (SymExpr spells floor division and extrema as calls it does not).
    auto where = [&](const SymExpr& from, const SymExpr& to) {
      std::string a = from.str(), b = (to + SymExpr(1)).str();
      bool plain = a.find('(') == std::string::npos && b.find('(') == std::string::npos;
      return "'where " + name + " in " + (plain ? a + ":" + b : std::string("lo:hi")) + "'";
    };
    const std::string hint = "; if the condition is meant to skip values outside the tensor, ";
    if (!plain_lo) {
      const AccessConstraint& c = *guarded.front().c;
      diags_.warning(c.range, "index '" + name + "' takes its range " + range + " only from '" + access_text(c) +
                                  "', a read under a condition" + hint + "give the range with 'where " + name + " in lo:hi'");
      return;
    }
    // The first read under a condition that may bound the index more tightly.
    for (const Narrowing& g : guarded) {
      if ((*plain_lo - g.lo).provably_nonnegative() && (g.hi - *plain_hi).provably_nonnegative()) continue;
      diags_.warning(g.c->range, "the read '" + access_text(*g.c) + "' under a condition bounds index '" + name + "' to " +
                                     range + "; its other reads allow [" + plain_lo->str() + ", " + plain_hi->str() + "]" +
                                     hint + "keep that range with " + where(*plain_lo, *plain_hi));
      return;
    }
  }

  std::string slice(const AccessConstraint& c) const {
    return c.subscript ? std::string(file_.slice(c.range)) : s_.indices[size_t(c.dim)].name;
  }

  std::string access_text(const AccessConstraint& c) const {
    return def_.tensors[size_t(c.tensor)].name + "(... " + slice(c) + " ...)";
  }

  bool report_unsolved() {
    std::vector<int> coupled;
    bool ok = true;
    for (size_t v = 0; v < s_.indices.size(); ++v) {
      const SemaIndex& ix = s_.indices[v];
      if (ix.solved) continue;
      std::vector<const AccessConstraint*> mentions;
      for (const AccessConstraint& c : s_.constraints)
        if (std::find(c.indices.begin(), c.indices.end(), int(v)) != c.indices.end()) mentions.push_back(&c);
      std::string hint = "; add 'where " + ix.name + " in lo:hi'";
      if (mentions.empty()) {
        std::string side = ix.on_lhs ? "left-hand index " : "index ";
        diags_.error(ix.first_use, side + "'" + ix.name + "' is not bounded by any tensor access" + hint);
        ok = false;
        continue;
      }
      bool all_non_affine = std::none_of(mentions.begin(), mentions.end(), [](auto* c) { return c->affine; });
      if (all_non_affine) {
        const AccessConstraint& c = *mentions.front();
        bool data = std::any_of(mentions.begin(), mentions.end(), [](auto* m) { return m->data_dependent; });
        std::string why = data ? "appears only in data-dependent subscripts such as '" + slice(c) + "'"
                               : "appears only in subscripts that are not affine, such as '" + slice(c) + "'";
        Diagnostic& d = diags_.error(ix.first_use, "cannot infer the range of index '" + ix.name + "': it " + why + hint);
        d.notes.push_back({"used here", c.range});
        ok = false;
        continue;
      }
      coupled.push_back(int(v));
    }
    if (!coupled.empty()) {
      // One error for the indices that only ever appear together.
      std::string names;
      for (size_t i = 0; i < coupled.size(); ++i)
        names += (i ? (i + 1 == coupled.size() ? " and '" : ", '") : "'") + s_.indices[size_t(coupled[i])].name + "'";
      const SemaIndex& first = s_.indices[size_t(coupled[0])];
      const AccessConstraint* example = nullptr;
      for (const AccessConstraint& c : s_.constraints)
        if (c.affine && std::find(c.indices.begin(), c.indices.end(), coupled[0]) != c.indices.end()) { example = &c; break; }
      std::string msg = coupled.size() == 1
                            ? "cannot infer the range of index " + names + ": every access that uses it also uses another unsolved index"
                            : "cannot infer the ranges of indices " + names + ": they appear only together in subscripts";
      msg += "; add 'where " + first.name + " in lo:hi'";
      Diagnostic& d = diags_.error(first.first_use, msg);
      if (example) d.notes.push_back({"for example in '" + slice(*example) + "'", example->range});
      ok = false;
    }
    return ok;
  }

  void check_leftovers() {
    for (const AccessConstraint& c : s_.constraints) {
      if (c.used_to_solve || c.guarded) continue;  // a guarded read is checked when it runs
      const SemaTensor& T = def_.tensors[size_t(c.tensor)];
      std::string where = "dimension " + std::to_string(c.dim) + " of '" + T.name + "'";
      if (!c.affine) {
        std::string what = c.data_dependent ? "reads data" : "is not affine";
        diags_.warning(c.range, "subscript '" + slice(c) + "' " + what + ", so it cannot be proven to stay within " + where +
                                    " [" + T.lo[size_t(c.dim)].str() + ", " + T.hi[size_t(c.dim)].str() +
                                    "]; compiled kernels do not check this at run time");
        continue;
      }
      auto [lo, hi] = constraint_bounds(c, s_.indices);
      const SymExpr& L = T.lo[size_t(c.dim)];
      const SymExpr& H = T.hi[size_t(c.dim)];
      if (!(lo - L).provably_nonnegative()) {
        diags_.warning(c.range, "precondition not checked at run time: '" + slice(c) + "' goes down to " + lo.str() +
                                    ", which needs " + lo.str() + " >= " + L.str() + " to stay within " + where);
      } else if (!(H - hi).provably_nonnegative()) {
        diags_.warning(c.range, "precondition not checked at run time: '" + slice(c) + "' reaches " + hi.str() +
                                    ", which needs " + hi.str() + " <= " + H.str() + " to stay within " + where);
      }
    }
  }

  const SemaDef& def_;
  SemaStmt& s_;
  const SourceFile& file_;
  Diagnostics& diags_;
  std::vector<int> in_conditions_;
};

}  // namespace

std::pair<SymExpr, SymExpr> constraint_bounds(const AccessConstraint& c, const std::vector<SemaIndex>& indices) {
  SymExpr lo = c.rest, hi = c.rest;
  for (auto [ix, co] : c.coefs) {
    const SemaIndex& u = indices[size_t(ix)];
    lo = lo + (co > 0 ? u.lo : u.hi) * SymExpr(co);
    hi = hi + (co > 0 ? u.hi : u.lo) * SymExpr(co);
  }
  return {lo, hi};
}

bool ranges_infer_statement(const SemaDef& def, SemaStmt& stmt, const SourceFile& file, Diagnostics& diags) {
  return StmtRanges(def, stmt, file, diags).run();
}

}  // namespace tcs
