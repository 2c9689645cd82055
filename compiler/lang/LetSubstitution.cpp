#include "lang/LetSubstitution.h"

#include <algorithm>
#include <set>
#include <vector>

namespace tcs {

using ast::Expr;
using ast::ExprKind;

std::optional<LetCycle> lets_substitute(ast::Stmt& st,
                                        const std::map<std::string, const ast::WhereClause*, std::less<>>& lets,
                                        Diagnostics& diags) {
  auto quote = [](const std::string& n) { return "'" + n + "'"; };
  std::map<std::string, ast::ExprPtr, std::less<>> expanded;
  std::set<std::string, std::less<>> used;
  std::vector<std::string> path;  // the bindings being expanded, outermost first
  std::vector<std::string> cycle;
  auto expand = [&](auto& self, const std::string& name) -> const Expr* {
    if (auto it = expanded.find(name); it != expanded.end()) return it->second.get();
    if (auto it = std::find(path.begin(), path.end(), name); it != path.end()) {
      cycle.assign(it, path.end());
      return nullptr;
    }
    path.push_back(name);
    ast::ExprPtr v = lets.at(name)->value->clone();
    bool ok = true;
    auto subst = [&](auto& rec, ast::ExprPtr& e) -> void {
      if (!ok) return;
      if (e->kind == ExprKind::Name && lets.count(e->name)) {
        used.insert(e->name);
        const Expr* val = self(self, e->name);
        if (!val) {
          ok = false;
          return;
        }
        e = val->clone();
        return;
      }
      for (auto& a : e->args) rec(rec, a);
    };
    subst(subst, v);
    path.pop_back();
    if (!ok) return nullptr;
    return (expanded[name] = std::move(v)).get();
  };
  for (const auto& [name, clause] : lets) {
    if (expand(expand, name)) continue;
    std::string msg = cycle.size() <= 1 ? "the let binding " + quote(name) + " refers to itself" : "the let bindings ";
    for (size_t i = 0; cycle.size() > 1 && i < cycle.size(); ++i)
      msg += (i ? (i + 1 == cycle.size() ? " and " : ", ") : "") + quote(cycle[i]);
    if (cycle.size() > 1) msg += " refer to each other";
    return LetCycle{lets.at(cycle.empty() ? name : cycle.front())->name_range, msg};
  }
  auto apply = [&](auto& self, ast::ExprPtr& e) -> void {
    if (e->kind == ExprKind::Name && expanded.count(e->name)) {
      used.insert(e->name);
      SourceRange r = e->range;
      e = expanded[e->name]->clone();
      e->range = r;  // diagnostics point at the use, not at the binding
      return;
    }
    for (auto& a : e->args) self(self, a);
  };
  apply(apply, st.rhs);
  for (ast::WhereClause& c : st.where)
    if (c.kind == ast::WhereClause::Exists) apply(apply, c.value);
  for (auto& a : st.equivalent_args) apply(apply, a);
  for (const auto& [name, clause] : lets)
    if (!used.count(name)) diags.warning(clause->name_range, "the let binding " + quote(name) + " is not used");
  return std::nullopt;
}

}  // namespace tcs
