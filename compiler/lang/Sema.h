#pragma once
// Semantic analysis of a parsed file: names, element types, the checks of LANGUAGE.md §3
// and range inference (§4). The result is plain data that the interpreter, the polyhedral
// model and the views read; expressions in the AST are annotated in place.
#include <string>
#include <vector>

#include "lang/Ast.h"
#include "lang/Diagnostic.h"
#include "lang/SymExpr.h"

namespace tcs {

enum class TensorRole { Input, Output, Temporary };

struct SemaTensor {
  std::string name;
  TensorRole role = TensorRole::Input;
  ScalarType type = ScalarType::Float32;
  bool type_known = false;
  SourceRange decl_range;  // the declaration, or the first left-hand side for temporaries
  int first_writer = -1;   // statement that defines it; -1 for inputs
  // Inclusive bounds of every dimension, once known (inputs and declared outputs from
  // their types, others from their first writer). A dimension of extent E starting at 0
  // has lo = 0, hi = E - 1.
  bool shape_known = false;
  std::vector<SymExpr> lo, hi;
  int rank() const { return int(lo.size()); }
};

struct SemaIndex {
  std::string name;
  SourceRange first_use;
  bool on_lhs = false;
  bool from_where = false;  // bounded by `where v in lo:hi`
  bool solved = false;
  SymExpr lo, hi;           // inclusive interval, valid when solved
};

// One dimension of one tensor access: the constraint lo <= subscript <= hi.
struct AccessConstraint {
  int tensor = -1;
  int dim = 0;
  const ast::Expr* subscript = nullptr;  // null for an implicit read of the left-hand side
  SourceRange range;
  bool affine = false;          // subscript = sum coef*index + rest(sizes)
  bool data_dependent = false;  // the subscript reads a tensor
  // Read only when a guard holds: inside a branch of '?:' or right of '&&' / '||'. Such a
  // read may name elements outside the tensor for indices its guard excludes (TC checks
  // these at run time): sizes do not refuse it, compiled kernels check it when it runs.
  bool guarded = false;
  // A guarded read that the statement's domain guard keeps inside its tensor: compiled
  // code, which runs the statement only where that guard holds, reads it unchecked.
  bool kept_inside = false;
  bool checked_when_run() const { return guarded && !kept_inside; }
  std::vector<std::pair<int, int64_t>> coefs;  // (index id, coefficient), affine only
  SymExpr rest;
  std::vector<int> indices;     // every index the subscript mentions
  bool used_to_solve = false;   // one of the constraints that gave an index its interval
};

// sum(coef * index) + rest >= 0, rest over sizes.
struct IndexConstraint {
  std::vector<std::pair<int, int64_t>> coefs;  // (index id, coefficient)
  SymExpr rest;
};

struct SemaStmt {
  const ast::Stmt* ast = nullptr;
  int lhs_tensor = -1;
  std::vector<SemaIndex> indices;  // left-hand indices first, in order, then the others
  int lhs_rank = 0;                // indices[0 .. lhs_rank) are the left-hand side
  bool accumulates_into_existing = false;  // op= without '!'
  std::vector<AccessConstraint> constraints;
  bool ok = true;  // false when any error was reported for this statement
  // A reduction whose right-hand side is `cond ? value : identity`, cond a conjunction of
  // affine comparisons of indices and sizes (a padded convolution's bounds test): the
  // points where cond fails add the identity, so compiled code runs the statement only
  // where `domain_guard` holds, on `value` alone (lang/DomainGuard). The interpreter
  // still evaluates the whole right-hand side.
  std::vector<IndexConstraint> domain_guard;
  const ast::Expr* guarded_value = nullptr;
  // What compiled code evaluates at each point of the statement's domain.
  const ast::Expr& value() const { return guarded_value ? *guarded_value : *ast->rhs; }

  // Whether the statement combines values into its left-hand side: an op= or op=! with a
  // reduction index (op=! without one behaves as '=', LANGUAGE.md §3), or an op= that
  // accumulates into an existing tensor.
  bool reduces() const;
  // Whether the value it computes reads tensor `t` (a later `S += X(i) * S` reads S).
  bool reads(int t) const;
};

struct SemaDef {
  const ast::Def* ast = nullptr;
  std::string name;
  std::vector<std::string> size_params;  // in order of first appearance
  std::vector<SemaTensor> tensors;       // parameters, then outputs, then temporaries
  int num_params = 0, num_outputs = 0;
  std::vector<SemaStmt> stmts;
  bool ok = true;

  int find_tensor(std::string_view n) const;
  int find_size_param(std::string_view n) const;
  // The signature's declaration of tensor `t` (an input or output); null for temporaries.
  const ast::TensorDecl* declaration(int t) const;
};

// Checks every def, annotating `program` in place. Defs with errors are still returned
// (ok = false) so tools can show what was understood.
std::vector<SemaDef> sema_check(ast::Program& program, const SourceFile& file, Diagnostics& diags);

}  // namespace tcs
