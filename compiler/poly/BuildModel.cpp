// Pass 1: the polyhedral model. Each source statement k becomes S<k> with an iteration
// domain over its indices (left-hand ones first); an op=! reduction also gets S<k>_init,
// the identity written over the left-hand points. Accesses come from sema's access
// constraints; a subscript that is data-dependent or not affine is over-approximated by
// the whole extent of its dimension. The initial schedule is textual order.
#include <algorithm>
#include <regex>
#include <set>

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

// Names isl's parser reserves; a tensor, index or size with one of these names is renamed
// in the isl text (and only there).
bool isl_reserved(const std::string& n) {
  static const std::set<std::string> words = {"and", "or", "not", "implies", "exists", "mod", "floor",
                                              "ceil", "min", "max", "infty", "NaN", "true", "false",
                                              "rat", "domain", "range", "cross", "sum"};
  return words.count(n) > 0;
}

std::string isl_name(const std::string& n) { return isl_reserved(n) ? n + "_" : n; }

// Tensors get a prefix when their name looks like a statement's.
std::string tensor_tuple(const std::string& n) {
  static const std::regex stmt_like("S[0-9]+(_init)?");
  return std::regex_match(n, stmt_like) ? "T_" + n : isl_name(n);
}

// Whether isl can read the expression: no product of sizes anywhere in it.
bool sym_affine(const SymExpr& e) {
  for (const SymExpr::Term& t : e.terms()) {
    if (t.atom->kind == SymAtom::Product) return false;
    for (const SymExpr& o : t.atom->operands)
      if (!sym_affine(o)) return false;
  }
  return true;
}

// A SymExpr in isl syntax over (renamed) size parameters; empty when isl cannot read it
// (products of sizes are not affine).
std::string sym_text(const SymExpr& e) {
  if (!sym_affine(e)) return {};
  std::string s = e.str();
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      std::string word = s.substr(i, j - i);
      bool call = j < s.size() && s[j] == '(';
      out += call ? word : isl_name(word);
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

class ModelBuilder {
 public:
  explicit ModelBuilder(PolyJob& job) : job_(job), def_(job.def) {}

  void run() {
    parametric_ = !job_.options.fix_parameters_before_scheduling || job_.symbolic_sizes;
    std::string names, fixed;
    for (const std::string& p : def_.size_params) {
      names += (names.empty() ? "" : ", ") + isl_name(p);
      fixed += (fixed.empty() ? "" : " and ") + isl_name(p) + " = " + std::to_string(job_.shapes.sizes.at(p));
    }
    isl::set sizes(job_.ctx, "[" + names + "] -> { : " + (fixed.empty() ? "true" : fixed) + " }");
    job_.info.context = isl_text(sizes);
    if (parametric_) {
      for (const std::string& p : def_.size_params) job_.params.push_back(isl_name(p));
      param_names_ = names;
      job_.context = job_.symbolic_sizes ? symbolic_context() : sizes;
    } else {
      // Fixed sizes are numbers in every set; carrying the sizes as parameters too would
      // only widen every constraint isl handles (it made conv2d's compile 40 % slower).
      job_.context = isl::set(job_.ctx, "{ : }");
    }

    job_.domain = isl::union_set(job_.ctx, "[" + param_names_ + "] -> { }");
    job_.reads = isl::union_map(job_.ctx, "{ }");
    job_.writes = job_.reads;
    for (size_t k = 0; k < def_.stmts.size(); ++k) add_statement(int(k));
    build_initial_schedule();
  }

 private:
  // Symbolic sizes: what every size the code is called with satisfies (size_conditions),
  // as far as isl can read it; a condition it cannot read is still checked by the code.
  isl::set symbolic_context() {
    std::string c;
    for (const SizeCondition& cond : size_conditions(def_))
      if (std::string t = sym_text(cond.nonnegative); !t.empty()) c += (c.empty() ? "" : " and ") + t + " >= 0";
    return isl::set(job_.ctx, "[" + param_names_ + "] -> { : " + (c.empty() ? "true" : c) + " }");
  }

  // Where the sizes must stay symbolic but an expression is not affine in them.
  [[noreturn]] void not_affine(const std::string& what) {
    throw SizesError{"the sizes of '" + def_.name + "' cannot stay symbolic: " + what +
                     " is not affine in them; fix the sizes instead"};
  }

  // The bounds of index i of statement k: symbolic when asked and possible, else numbers.
  std::pair<std::string, std::string> bounds(int k, size_t i) {
    const IndexRange& r = job_.shapes.stmts[size_t(k)][i];
    if (parametric_) {
      const SemaIndex& ix = def_.stmts[size_t(k)].indices[i];
      std::string lo = sym_text(ix.lo), hi = sym_text(ix.hi);
      if (!lo.empty() && !hi.empty()) return {lo, hi};
      std::string what = "the range of '" + ix.name + "' in statement " + std::to_string(k + 1);
      if (job_.symbolic_sizes) not_affine(what);
      job_.note(what + " is not affine in the sizes; it is fixed to the given sizes");
    }
    return {std::to_string(r.lo), std::to_string(r.hi)};
  }

  std::string tuple(const std::string& stmt, const SemaStmt& st, size_t count) {
    std::string t = stmt + "[";
    for (size_t i = 0; i < count; ++i) t += (i ? ", " : "") + isl_name(st.indices[i].name);
    return t + "]";
  }

  std::string domain_text(int k, const std::string& stmt, size_t count) {
    const SemaStmt& st = def_.stmts[size_t(k)];
    std::string c;
    for (size_t i = 0; i < count; ++i) {
      auto [lo, hi] = bounds(k, i);
      c += (i ? " and " : "") + lo + " <= " + isl_name(st.indices[i].name) + " <= " + hi;
    }
    if (count == st.indices.size())  // the update, not the initialisation
      for (const IndexConstraint& g : st.domain_guard) c += (c.empty() ? "" : " and ") + guard_text(st, g);
    return "[" + param_names_ + "] -> { " + tuple(stmt, st, count) + (c.empty() ? "" : " : " + c) + " }";
  }

  // One constraint of the statement's domain guard, `... >= 0`.
  std::string guard_text(const SemaStmt& st, const IndexConstraint& g) {
    std::string rest;
    if (parametric_) rest = sym_text(g.rest);
    if (rest.empty() && job_.symbolic_sizes) not_affine("the guard of statement " + std::to_string(&st - def_.stmts.data() + 1));
    if (rest.empty()) {
      auto v = g.rest.eval(job_.shapes.sizes);
      if (!v) throw SizesError{"the guard of statement " + std::to_string(&st - def_.stmts.data() + 1) + " overflows at these sizes"};
      rest = std::to_string(*v);
    }
    std::string s = "(" + rest + ")";
    for (auto [idx, coef] : g.coefs)
      s += (coef < 0 ? " - " : " + ") + std::to_string(coef < 0 ? -coef : coef) + "*" + isl_name(st.indices[size_t(idx)].name);
    return s + " >= 0";
  }

  // The access of tensor expression `e` (a read) or of the left-hand side (e == nullptr).
  std::string access_text(int k, const std::string& stmt, size_t count, const ast::Expr* e) {
    const SemaStmt& st = def_.stmts[size_t(k)];
    int t = e ? e->ref_id : st.lhs_tensor;
    const SemaTensor& T = def_.tensors[size_t(t)];
    const TensorShape& shape = job_.shapes.tensors[size_t(t)];
    std::string out, cond;
    for (int d = 0; d < T.rank(); ++d) {
      std::string sub;
      if (!e) {
        sub = isl_name(st.indices[size_t(d)].name);
      } else {
        const ast::Expr* s = e->args[size_t(d)].get();
        const AccessConstraint* ac = nullptr;
        for (const AccessConstraint& c : st.constraints)
          if (c.subscript == s) ac = &c;
        if (ac && ac->affine && !ac->data_dependent) sub = affine_text(st, *ac);
        if (sub.empty()) {
          // Over-approximation: any coordinate of the dimension.
          sub = "a" + std::to_string(d);
          int64_t lo = shape.min[size_t(d)], hi = lo + shape.extent[size_t(d)] - 1;
          std::string lo_text = std::to_string(lo), hi_text = std::to_string(hi);
          if (job_.symbolic_sizes) {
            lo_text = sym_text(T.lo[size_t(d)]);
            hi_text = sym_text(T.hi[size_t(d)]);
            if (lo_text.empty() || hi_text.empty()) not_affine("the shape of '" + T.name + "'");
          }
          cond += (cond.empty() ? "" : " and ") + lo_text + " <= " + sub + " <= " + hi_text;
          job_.note("subscript " + std::to_string(d) + " of '" + T.name + "' in statement " + std::to_string(k + 1) +
               (ac && ac->data_dependent ? " reads a tensor" : " is not affine") +
               "; the model assumes it may touch the whole dimension");
        }
      }
      out += (d ? ", " : "") + sub;
    }
    return "[" + param_names_ + "] -> { " + tuple(stmt, st, count) + " -> " + tensor_tuple(T.name) + "[" + out + "]" +
           (cond.empty() ? "" : " : " + cond) + " }";
  }

  std::string affine_text(const SemaStmt& st, const AccessConstraint& ac) {
    std::string rest;
    if (parametric_) rest = sym_text(ac.rest);
    if (rest.empty() && job_.symbolic_sizes) not_affine("a subscript of '" + def_.tensors[size_t(ac.tensor)].name + "'");
    if (rest.empty()) {
      auto v = ac.rest.eval(job_.shapes.sizes);
      if (!v) return {};
      rest = std::to_string(*v);
    }
    std::string s;
    for (auto [idx, coef] : ac.coefs) {
      if (coef == 0) continue;
      std::string name = isl_name(st.indices[size_t(idx)].name);
      std::string term = coef == 1 ? name : coef == -1 ? "-" + name : std::to_string(coef) + name;
      s += s.empty() ? term : (term[0] == '-' ? " - " + term.substr(1) : " + " + term);
    }
    if (rest != "0") s += s.empty() ? rest : " + (" + rest + ")";
    return s.empty() ? "0" : s;
  }

  // Every tensor read in an expression, nested reads (data-dependent subscripts) included.
  static void collect_reads(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
    if ((e.kind == ast::ExprKind::Access || e.kind == ast::ExprKind::Name) && e.ref == ast::NameRef::Tensor)
      out.push_back(&e);
    for (const auto& a : e.args) collect_reads(*a, out);
  }

  void add_statement(int k) {
    const SemaStmt& st = def_.stmts[size_t(k)];
    const ast::Stmt& a = *st.ast;
    size_t n = st.indices.size(), lhs = size_t(st.lhs_rank);
    bool reduces = st.reduces();
    std::string name = "S" + std::to_string(k);
    if (reduces && a.init) {
      std::string init = name + "_init";
      job_.stmts.push_back(PolyStmt{init, k, true, {}});
      add(init, domain_text(k, init, lhs), {}, access_text(k, init, lhs, nullptr));
    }
    job_.stmts.push_back(PolyStmt{name, k, false, {}});
    std::vector<std::string> reads;
    std::vector<const ast::Expr*> exprs;
    collect_reads(st.value(), exprs);
    for (const ast::Expr* e : exprs) reads.push_back(access_text(k, name, n, e));
    if (reduces) reads.push_back(access_text(k, name, n, nullptr));
    add(name, domain_text(k, name, n), reads, access_text(k, name, n, nullptr));
  }

  void add(const std::string& name, const std::string& domain, const std::vector<std::string>& reads,
           const std::string& write) {
    const PolyStmt& ps = job_.stmts.back();
    ModelStatement ms{name, ps.source_stmt, ps.is_init, {}, {}, {}};
    isl::set dom(job_.ctx, domain);
    job_.domain = job_.domain.unite(isl::union_set(dom));
    ms.domain = isl_text(dom);
    for (const std::string& r : reads) {
      isl::map m = isl::map(job_.ctx, r).intersect_domain(dom);
      job_.reads = job_.reads.unite(isl::union_map(m));
      ms.reads.push_back(isl_text(m));
    }
    isl::map w = isl::map(job_.ctx, write).intersect_domain(dom);
    job_.writes = job_.writes.unite(isl::union_map(w));
    ms.writes.push_back(isl_text(w));
    job_.info.statements.push_back(std::move(ms));
  }

  // A sequence of the statements, each scanning its indices in order (isl's C interface:
  // the C++ bindings of isl 0.25 lack schedule sequencing).
  void build_initial_schedule() {
    isl_schedule* all = nullptr;
    for (const ModelStatement& ms : job_.info.statements) {
      isl::set dom(job_.ctx, ms.domain);
      isl_schedule* one = isl_schedule_from_domain(isl_union_set_from_set(dom.copy()));
      if (dom.tuple_dim() > 0) {
        isl_multi_aff* id = isl_multi_aff_identity_on_domain_space(isl_set_get_space(dom.get()));
        isl_multi_union_pw_aff* sched =
            isl_multi_union_pw_aff_from_multi_pw_aff(isl_multi_pw_aff_from_multi_aff(id));
        one = isl_schedule_insert_partial_schedule(one, sched);
      }
      all = all ? isl_schedule_sequence(all, one) : one;
    }
    job_.initial = all ? isl::manage(all) : isl::schedule::from_domain(job_.domain);
    job_.info.initial_schedule = isl_text(job_.initial.get_map());
  }

  PolyJob& job_;
  const SemaDef& def_;
  bool parametric_ = false;
  std::string param_names_;
};

}  // namespace

int PolyJob::stmt_index(const std::string& name) const {
  for (size_t i = 0; i < stmts.size(); ++i)
    if (stmts[i].name == name) return int(i);
  return -1;
}

const MappingOptions& PolyJob::options_for(const isl::schedule_node& n) {
  if (options.statements.empty()) return options;
  std::vector<int> sources;  // the source statements below n, in order
  isl::manage(isl_schedule_node_get_domain(n.get())).foreach_set([&](isl::set s) {
    if (int i = stmt_index(isl_set_get_tuple_name(s.get())); i >= 0) sources.push_back(stmts[size_t(i)].source_stmt);
  });
  std::sort(sources.begin(), sources.end());
  const MappingOptions* chosen = nullptr;
  int chosen_stmt = -1;
  for (int k : sources) {
    std::string id = "S" + std::to_string(k);
    if (std::none_of(options.statements.begin(), options.statements.end(), [&](const StatementOptions& s) { return s.statement == id; }))
      continue;
    const MappingOptions& own = statement_options[size_t(k)];
    if (!chosen) chosen = &own, chosen_stmt = k;
    else if (!(own == *chosen))
      note(id + " shares its loops with S" + std::to_string(chosen_stmt) + ", so they take statements.S" +
           std::to_string(chosen_stmt) + " and " + id + "'s own options do not apply there");
  }
  return chosen ? *chosen : options;
}

void PolyJob::note(const std::string& n) {
  for (const std::string& x : info.notes)
    if (x == n) return;
  info.notes.push_back(n);
}

void build_model(PolyJob& job) { ModelBuilder(job).run(); }

}  // namespace tcs::poly
