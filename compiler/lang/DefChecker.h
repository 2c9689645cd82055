#pragma once
// One def's semantic checks (sema_check, lang/Sema.h), in two files: its declarations,
// statements and assignments in Sema.cpp, the typing of its expressions in
// SemaExpressions.cpp. Internal to the front end.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lang/Builtins.h"
#include "lang/Sema.h"

namespace tcs::sema_detail {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;

// "; did you mean 'X'?" when a known name is one or two edits away.
std::string suggest(std::string_view name, const std::vector<std::string>& candidates);
std::string quote(std::string_view s);
bool is_numeric(ScalarType t);

class DefChecker {
 public:
  DefChecker(ast::Def& def, const SourceFile& file, Diagnostics& diags)
      : def_(def), file_(file), diags_(diags) {}

  SemaDef run();

 private:
  // ---- declarations -------------------------------------------------------------------
  void error(SourceRange r, std::string msg);
  std::optional<SymExpr> declare_dim(const ast::Dim& d, TensorRole role);
  void declare_tensors(const std::vector<ast::TensorDecl>& decls, TensorRole role);

  // ---- statements ---------------------------------------------------------------------
  struct StmtScope {
    SemaStmt* s;
    std::map<std::string, int, std::less<>> index_ids;
    bool failed = false;
  };
  int add_index(StmtScope& sc, const std::string& name, SourceRange r, bool on_lhs);
  void stmt_error(StmtScope& sc, SourceRange r, std::string msg);
  std::string index_name_clash(const std::string& name) const;
  void check_stmt(ast::Stmt& st);
  bool touches_broken(const SemaStmt& s) const;
  int resolve_lhs_tensor(StmtScope& sc, const ast::Stmt& st);

  // ---- expressions --------------------------------------------------------------------
  std::vector<std::string> known_names() const;
  std::optional<ScalarType> read_tensor(StmtScope& sc, Expr& e, int t);
  std::optional<ScalarType> resolve(StmtScope& sc, Expr& e);
  std::optional<ScalarType> resolve_builtin(StmtScope& sc, Expr& e, const Builtin& b);
  std::optional<ScalarType> resolve_binary(StmtScope& sc, Expr& e);
  static void promote_bool_operand(std::optional<ScalarType>& a, std::optional<ScalarType>& b);
  void resolve_loose(StmtScope& sc, Expr& e);
  std::optional<SymExpr> size_expression(StmtScope& sc, Expr& e, const std::string& var);

  // ---- assignment ---------------------------------------------------------------------
  void check_assignment(StmtScope& sc, const ast::Stmt& st, std::optional<ScalarType> rhs);

  // ---- whole def ----------------------------------------------------------------------
  void check_unused();
  ast::Def& def_;
  const SourceFile& file_;
  Diagnostics& diags_;
  SemaDef out_;
  std::vector<SourceRange> size_param_ranges_;
  std::set<std::string, std::less<>> reported_size_clash_;
  std::set<std::string, std::less<>> broken_;  // tensors whose shape failed: skip cascades
  std::set<std::string, std::less<>> redeclared_;     // declarations already reported as wrong
  std::set<std::string, std::less<>> read_in_bounds_;  // tensors read in where bounds (reported)
  std::map<std::string, int, std::less<>> first_lhs_line_;  // tensor -> line of its first writer
  std::map<std::string, const ast::WhereClause*, std::less<>> where_ranges_;
};

}  // namespace tcs::sema_detail
