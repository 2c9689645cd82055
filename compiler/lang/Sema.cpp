#include "lang/Sema.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lang/Builtins.h"
#include "lang/DefChecker.h"
#include "lang/DomainGuard.h"
#include "lang/LetSubstitution.h"
#include "lang/OwnOutputReads.h"
#include "lang/RangeInference.h"
#include "support/EditDistance.h"

namespace tcs {

int SemaDef::find_tensor(std::string_view n) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return int(i);
  return -1;
}

const ast::TensorDecl* SemaDef::declaration(int t) const {
  if (t < 0 || size_t(t) >= tensors.size() || tensors[size_t(t)].role == TensorRole::Temporary) return nullptr;
  const auto& decls = tensors[size_t(t)].role == TensorRole::Input ? ast->params : ast->outputs;
  for (const ast::TensorDecl& d : decls)
    if (d.name == tensors[size_t(t)].name) return &d;
  return nullptr;
}

int SemaDef::find_size_param(std::string_view n) const {
  for (size_t i = 0; i < size_params.size(); ++i)
    if (size_params[i] == n) return int(i);
  return -1;
}

namespace sema_detail {

std::string suggest(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.size() < 3) return "";  // every short name is one edit from another
  std::string best;
  size_t best_d = name.size() <= 3 ? 1 : 2;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d <= best_d && d > 0) best = c, best_d = d;
  }
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

bool is_numeric(ScalarType t) { return t != ScalarType::Bool; }

SemaDef DefChecker::run() {
  out_.ast = &def_;
  out_.name = def_.name;
  declare_tensors(def_.params, TensorRole::Input);
  out_.num_params = int(out_.tensors.size());
  declare_tensors(def_.outputs, TensorRole::Output);
  out_.num_outputs = int(out_.tensors.size()) - out_.num_params;
  // The parser could not read some statements: their tensors exist but are unknown, so
  // uses of them fail quietly instead of adding errors about the user's one mistake.
  for (const ast::IndexName& d : def_.dropped_statements) {
    if (d.name.empty()) continue;
    broken_.insert(d.name);
    if (out_.find_tensor(d.name) < 0 && out_.find_size_param(d.name) < 0 && !builtin_find(d.name)) {
      SemaTensor t;
      t.name = d.name;
      t.role = TensorRole::Temporary;
      t.decl_range = d.range;
      out_.tensors.push_back(t);
    }
  }
  for (size_t i = 0; i < def_.stmts.size(); ++i)
    if (!first_lhs_line_.count(def_.stmts[i].lhs))
      first_lhs_line_[def_.stmts[i].lhs] = file_.line_column(def_.stmts[i].lhs_range.begin).line;
  for (size_t i = 0; i < def_.stmts.size(); ++i) check_stmt(def_.stmts[i]);
  check_unused();
  return std::move(out_);
}

void DefChecker::error(SourceRange r, std::string msg) {
  diags_.error(r, std::move(msg));
  out_.ok = false;
}

std::optional<SymExpr> DefChecker::declare_dim(const ast::Dim& d, TensorRole role) {
  if (d.name.empty()) {
    if (d.value == ast::Dim::kBadLiteral) return std::nullopt;  // the parser reported it
    if (d.value <= 0) {
      error(d.range, "a tensor dimension must be at least 1, not " + std::to_string(d.value));
      return std::nullopt;
    }
    return SymExpr(d.value);
  }
  if (builtin_find(d.name)) {
    error(d.range, quote(d.name) + " is a builtin function and cannot name a size");
    return std::nullopt;
  }
  if (out_.find_size_param(d.name) < 0) {
    if (role == TensorRole::Output && out_.find_tensor(d.name) >= 0) {
      error(d.range, quote(d.name) + " names a tensor and cannot be a size");
      return std::nullopt;
    }
    out_.size_params.push_back(d.name);
    size_param_ranges_.push_back(d.range);
  }
  return SymExpr::param(d.name);
}

void DefChecker::declare_tensors(const std::vector<ast::TensorDecl>& decls, TensorRole role) {
  for (const ast::TensorDecl& d : decls) {
    SemaTensor t;
    t.name = d.name;
    t.role = role;
    t.decl_range = d.name_range;
    bool dims_ok = true;
    for (const ast::Dim& dim : d.dims) {
      auto extent = declare_dim(dim, role);
      if (!extent) { dims_ok = false; continue; }
      t.lo.push_back(SymExpr(0));
      t.hi.push_back(*extent - SymExpr(1));
    }
    if (d.type) {  // "float O" declares a 0-d output, "float(M) O" a 1-d one
      t.type = *d.type;
      t.type_known = true;
      t.shape_known = dims_ok;
    }
    if (!dims_ok) broken_.insert(d.name);
    // Still declared after this error, so its uses do not add more.
    if (builtin_find(d.name)) {
      error(d.name_range, quote(d.name) + " is a builtin function and cannot name a tensor");
      redeclared_.insert(d.name);
    }
    int prev = out_.find_tensor(d.name);
    if (prev >= 0) {
      const char* what = out_.tensors[size_t(prev)].role == TensorRole::Input ? "parameter" : "output";
      std::string msg = role == TensorRole::Output && out_.tensors[size_t(prev)].role == TensorRole::Input
                            ? "output " + quote(d.name) + " is also a parameter; parameters are read-only inputs"
                            : std::string(what) + " " + quote(d.name) + " is declared twice";
      Diagnostic& diag = diags_.error(d.name_range, msg);
      diag.notes.push_back({"first declared here", out_.tensors[size_t(prev)].decl_range});
      out_.ok = false;
      redeclared_.insert(d.name);
      continue;
    }
    out_.tensors.push_back(std::move(t));
  }
  // A name cannot be a size and a tensor at once.
  for (const SemaTensor& t : out_.tensors) {
    int s = out_.find_size_param(t.name);
    if (s >= 0 && !reported_size_clash_.count(t.name)) {
      reported_size_clash_.insert(t.name);
      error(t.decl_range, quote(t.name) + " is both a size parameter and a tensor");
    }
  }
}

int DefChecker::add_index(StmtScope& sc, const std::string& name, SourceRange r, bool on_lhs) {
  auto it = sc.index_ids.find(name);
  if (it != sc.index_ids.end()) return it->second;
  SemaIndex ix;
  ix.name = name;
  ix.first_use = r;
  ix.on_lhs = on_lhs;
  sc.s->indices.push_back(ix);
  int id = int(sc.s->indices.size()) - 1;
  sc.index_ids[name] = id;
  return id;
}

void DefChecker::stmt_error(StmtScope& sc, SourceRange r, std::string msg) {
  error(r, std::move(msg));
  sc.failed = true;
}

// Why `name` cannot be an index variable, or empty when it can.
std::string DefChecker::index_name_clash(const std::string& name) const {
  if (out_.find_size_param(name) >= 0) return quote(name) + " is a size parameter and cannot be an index variable";
  if (out_.find_tensor(name) >= 0) return quote(name) + " names a tensor and cannot be an index variable";
  if (builtin_find(name)) return quote(name) + " is a builtin function and cannot be an index variable";
  return "";
}

void DefChecker::check_stmt(ast::Stmt& st) {
  SemaStmt s;
  s.ast = &st;
  StmtScope sc{&s, {}, false};

  // Left-hand side: the tensor.
  int t = resolve_lhs_tensor(sc, st);
  s.lhs_tensor = t;

  // Left-hand side: plain, distinct index variables.
  for (const ast::IndexName& ix : st.lhs_indices) {
    std::string clash = index_name_clash(ix.name);
    if (!clash.empty()) {
      stmt_error(sc, ix.range, clash);
      add_index(sc, ix.name, ix.range, true);  // so its uses on the right do not add errors
      continue;
    }
    if (sc.index_ids.count(ix.name)) {
      stmt_error(sc, ix.range, "index " + quote(ix.name) + " appears twice on the left-hand side of " + quote(st.lhs));
      continue;
    }
    add_index(sc, ix.name, ix.range, true);
  }
  s.lhs_rank = int(s.indices.size());
  if (t >= 0 && !sc.failed) {
    SemaTensor& T = out_.tensors[size_t(t)];
    if (T.shape_known && T.rank() != int(st.lhs_indices.size()))
      stmt_error(sc, st.lhs_range, quote(st.lhs) + " has " + std::to_string(T.rank()) +
                                       " dimension" + (T.rank() == 1 ? "" : "s") + " but the left-hand side gives " +
                                       std::to_string(st.lhs_indices.size()) + " ind" +
                                       (st.lhs_indices.size() == 1 ? "ex" : "ices"));
  }

  // Where clauses: ranges and lets are names; lets are substituted in place.
  std::map<std::string, const ast::WhereClause*, std::less<>> lets;
  for (ast::WhereClause& c : st.where) {
    if (c.kind == ast::WhereClause::Exists) continue;
    std::string clash = index_name_clash(c.name);
    if (!clash.empty()) {
      if (c.kind == ast::WhereClause::Let) clash = clash.substr(0, clash.find(" and cannot")) + " and cannot be bound by a where clause";
      stmt_error(sc, c.name_range, clash);
      add_index(sc, c.name, c.name_range, false);  // so its uses do not add errors
      continue;
    }
    if (c.kind == ast::WhereClause::Let && sc.index_ids.count(c.name) && s.indices[size_t(sc.index_ids[c.name])].on_lhs) {
      stmt_error(sc, c.name_range, quote(c.name) + " is a left-hand index and cannot be bound by '='; use 'where " + c.name + " in lo:hi'");
      continue;
    }
    if (lets.count(c.name) || where_ranges_.count(c.name)) {
      stmt_error(sc, c.name_range, quote(c.name) + " is bound twice in the where clause");
      continue;
    }
    if (c.kind == ast::WhereClause::Let) lets[c.name] = &c;
    else where_ranges_[c.name] = &c;
  }
  if (!lets.empty()) {
    if (auto cycle = lets_substitute(st, lets, diags_)) stmt_error(sc, cycle->range, cycle->message);
  }
  // After an error on the left-hand side or in the where clause (a let cycle leaves names
  // unsubstituted), resolving the right-hand side would only add follow-on errors.
  if (sc.failed) {
    where_ranges_.clear();
    s.ok = false;
    out_.ok = false;
    if (t >= 0 && out_.tensors[size_t(t)].first_writer < 0) broken_.insert(out_.tensors[size_t(t)].name);
    out_.stmts.push_back(std::move(s));
    return;
  }

  // Right-hand side, exists clauses and the equivalence hint.
  std::optional<ScalarType> rhs_type = resolve(sc, *st.rhs);
  for (ast::WhereClause& c : st.where)
    if (c.kind == ast::WhereClause::Exists) resolve(sc, *c.value);
  for (auto& a : st.equivalent_args) resolve_loose(sc, *a);

  // Range clauses bound indices of the statement; their bounds are size expressions.
  for (auto& [name, c] : where_ranges_) {
    auto it = sc.index_ids.find(name);
    if (it == sc.index_ids.end()) {
      stmt_error(sc, c->name_range, "index " + quote(name) + " is bounded by the where clause but not used in the statement");
      continue;
    }
    SemaIndex& ix = s.indices[size_t(it->second)];
    auto lo = size_expression(sc, *c->lo, name), hi = size_expression(sc, *c->hi, name);
    if (!lo || !hi) continue;
    ix.from_where = true;
    ix.solved = true;
    ix.lo = *lo;
    ix.hi = *hi - SymExpr(1);
  }
  where_ranges_.clear();

  check_assignment(sc, st, rhs_type);
  if (!sc.failed && !touches_broken(s)) {
    if (!ranges_infer_statement(out_, s, file_, diags_)) sc.failed = true;
    else find_domain_guard(out_, s);
  } else {
    sc.failed = true;
  }
  s.ok = !sc.failed;
  if (!s.ok) out_.ok = false;

  // The first writer defines the tensor's shape and type.
  if (t >= 0) {
    SemaTensor& T = out_.tensors[size_t(t)];
    if (T.first_writer < 0) {
      T.first_writer = int(out_.stmts.size());
      if (!T.type_known && rhs_type) {
        T.type = *rhs_type;
        T.type_known = true;
      }
      if (!T.shape_known) {
        if (s.ok) {
          T.shape_known = true;
          for (int i = 0; i < s.lhs_rank; ++i) {
            T.lo.push_back(s.indices[size_t(i)].lo);
            T.hi.push_back(s.indices[size_t(i)].hi);
          }
        } else {
          broken_.insert(T.name);
        }
      }
    }
    if (T.decl_range == SourceRange{}) T.decl_range = st.lhs_range;
  }
  out_.stmts.push_back(std::move(s));
}

bool DefChecker::touches_broken(const SemaStmt& s) const {
  if (broken_.empty()) return false;
  bool found = false;
  auto visit = [&](auto& self, const Expr& e) -> void {
    if (e.ref == NameRef::Tensor && broken_.count(out_.tensors[size_t(e.ref_id)].name)) found = true;
    for (const auto& a : e.args) self(self, *a);
  };
  visit(visit, *s.ast->rhs);
  for (const ast::WhereClause& c : s.ast->where)
    if (c.kind == ast::WhereClause::Exists) visit(visit, *c.value);
  return found || (s.lhs_tensor >= 0 && broken_.count(out_.tensors[size_t(s.lhs_tensor)].name));
}

int DefChecker::resolve_lhs_tensor(StmtScope& sc, const ast::Stmt& st) {
  const std::string& n = st.lhs;
  SourceRange name_range{st.lhs_range.begin, st.lhs_range.begin + uint32_t(n.size())};
  int t = out_.find_tensor(n);
  if (t >= 0 && out_.tensors[size_t(t)].role == TensorRole::Input) {
    if (redeclared_.count(n)) {  // "-> (A)" with a parameter A was reported at the output
      sc.failed = true;
      return -1;
    }
    stmt_error(sc, name_range, "cannot assign to " + quote(n) + ": parameters are read-only inputs");
    return -1;
  }
  if (t >= 0) return t;
  if (out_.find_size_param(n) >= 0) {
    stmt_error(sc, st.lhs_range, quote(n) + " is a size parameter, not a tensor; it cannot be assigned");
    return -1;
  }
  if (builtin_find(n)) {
    stmt_error(sc, st.lhs_range, quote(n) + " is a builtin function and cannot be assigned");
    return -1;
  }
  SemaTensor tmp;
  tmp.name = n;
  tmp.role = TensorRole::Temporary;
  tmp.decl_range = name_range;
  out_.tensors.push_back(tmp);
  return int(out_.tensors.size()) - 1;
}

void DefChecker::check_assignment(StmtScope& sc, const ast::Stmt& st, std::optional<ScalarType> rhs) {
  SemaStmt& s = *sc.s;
  // '=' cannot reduce.
  if (st.reduce == ast::ReduceOp::None) {
    for (size_t i = size_t(s.lhs_rank); i < s.indices.size(); ++i) {
      stmt_error(sc, s.indices[i].first_use,
                 "index " + quote(s.indices[i].name) + " is not on the left-hand side, so it is a reduction index, "
                 "but '=' does not reduce; use a reduction such as '+=!' or add it to the left-hand side");
      return;
    }
  }
  if (s.lhs_tensor < 0 || !rhs) return;
  SemaTensor& T = out_.tensors[size_t(s.lhs_tensor)];
  std::string op(ast::reduce_op_spelling(st.reduce, st.init));
  // A reduction reading the element it reduces into: an error, or a warning where the
  // read may land on it only for some values (lang/OwnOutputReads.h).
  if (st.reduce != ast::ReduceOp::None && s.indices.size() > size_t(s.lhs_rank) && !sc.failed) {
    OwnOutputReads reads = own_output_reads(s, *st.rhs);
    const std::string why = quote(T.name) + " is read inside a reduction into it; ";
    const std::string order = "depend on the order of the reduction indices (" + quote(s.indices[size_t(s.lhs_rank)].name) + ")";
    if (reads.same) {
      stmt_error(sc, reads.same->name_range, why + "its value there would " + order + ": read a copy an earlier statement makes");
      return;
    }
    if (reads.maybe)
      diags_.warning(reads.maybe->name_range, why + "where the read lands on the element being reduced, its value would " +
                                                  order + ", and compiled code may differ from the interpreter");
  }
  // A bool right-hand side counts as 0 or 1 when the left-hand side has a numeric type.
  bool bool_into_number = *rhs == ScalarType::Bool && T.type_known && is_numeric(T.type);
  if (st.reduce != ast::ReduceOp::None && !is_numeric(*rhs) && !bool_into_number) {
    stmt_error(sc, st.rhs->range, quote(op) + " needs a numeric right-hand side, but it is bool");
    return;
  }
  if (T.type_known) {
    bool fits = *rhs == T.type || bool_into_number ||
                (is_numeric(*rhs) && is_numeric(T.type) && scalar_type_promote(T.type, *rhs) == T.type);
    if (!fits) {
      stmt_error(sc, st.rhs->range, "the right-hand side is " + std::string(scalar_type_name(*rhs)) + " but " +
                                        quote(T.name) + " is " + std::string(scalar_type_name(T.type)) +
                                        "; narrowing needs an explicit cast such as " +
                                        std::string(scalar_type_name(T.type)) + "(...)");
      return;
    }
  }
  if (st.reduce != ast::ReduceOp::None && !st.init) {
    s.accumulates_into_existing = true;
    if (T.first_writer < 0) {
      std::string bang = op + "!";
      std::string msg = T.role == TensorRole::Temporary
                            ? quote(op) + " accumulates into the temporary " + quote(T.name) +
                                  ", which no earlier statement initialises; it starts from zero (write '" + bang + "' to say so)"
                            : quote(op) + " accumulates into " + quote(T.name) +
                                  ", which no earlier statement initialises: the caller's values are used (write '" + bang +
                                  "' to start from the identity)";
      diags_.warning(st.assign_range, msg);
    }
  }
}

void DefChecker::check_unused() {
  if (def_.outputs.empty() && !def_.header_incomplete)
    diags_.warning(def_.name_range, "'" + def_.name + "' declares no outputs, so it computes nothing");
  // Text the parser skipped may have written outputs or read parameters: say nothing.
  if (def_.header_incomplete || !def_.dropped_statements.empty()) return;
  std::vector<bool> read(out_.tensors.size(), false);
  auto visit = [&](auto& self, const Expr& e) -> void {
    if (e.ref == NameRef::Tensor && e.ref_id >= 0) read[size_t(e.ref_id)] = true;
    if ((e.kind == ExprKind::Access || e.kind == ExprKind::Name) && e.ref == NameRef::Unresolved) {
      int t = out_.find_tensor(e.name);  // in a statement that failed before resolution
      if (t >= 0) read[size_t(t)] = true;
    }
    for (const auto& a : e.args) self(self, *a);
  };
  for (const ast::Stmt& st : def_.stmts) {
    if (st.rhs) visit(visit, *st.rhs);
    for (const ast::WhereClause& c : st.where)
      if (c.kind == ast::WhereClause::Exists) visit(visit, *c.value);
  }
  for (size_t i = 0; i < out_.tensors.size(); ++i) {
    const SemaTensor& t = out_.tensors[i];
    if (t.role == TensorRole::Output && t.first_writer < 0 && !broken_.count(t.name))
      error(t.decl_range, "output " + quote(t.name) + " is never written");
    if (t.role == TensorRole::Input && !read[i] && !read_in_bounds_.count(t.name) && !redeclared_.count(t.name))
      diags_.warning(t.decl_range, "parameter " + quote(t.name) + " is never read");
  }
}

}  // namespace sema_detail

using sema_detail::DefChecker;
using sema_detail::quote;

std::vector<SemaDef> sema_check(ast::Program& program, const SourceFile& file, Diagnostics& diags) {
  std::vector<SemaDef> defs;
  std::map<std::string, SourceRange, std::less<>> seen;
  for (ast::Def& d : program.defs) {
    if (!d.name.empty()) {
      if (auto it = seen.find(d.name); it != seen.end()) {
        Diagnostic& diag = diags.error(d.name_range, "def " + quote(d.name) + " is defined twice");
        diag.notes.push_back({"first defined here", it->second});
      } else {
        seen[d.name] = d.name_range;
      }
    }
    defs.push_back(DefChecker(d, file, diags).run());
  }
  return defs;
}

bool SemaStmt::reduces() const {
  return ast->reduce != ast::ReduceOp::None && (indices.size() > size_t(lhs_rank) || !ast->init);
}

bool SemaStmt::reads(int t) const { return first_read(value(), t) != nullptr; }

}  // namespace tcs
