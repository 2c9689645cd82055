#pragma once
// The syntax tree of a comprehension file, exactly as written. Sema annotates expressions
// in place (resolved kind, id and element type) and substitutes let bindings; nothing else
// rewrites the tree.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lang/Source.h"
#include "lang/Token.h"
#include "support/ScalarType.h"

namespace tcs::ast {

enum class ExprKind : uint8_t {
  IntLiteral,
  FloatLiteral,
  Name,     // a bare name: index variable, size parameter or 0-d tensor
  Access,   // NAME(args): tensor read or builtin call
  Unary,    // - !
  Binary,   // + - * / % < > <= >= == != && ||
  Ternary,  // c ? a : b
  Cast,     // type(expr)
  MinMax,   // min(a, b) / max(a, b)
};

// What a name refers to, filled in by Sema.
enum class NameRef : uint8_t { Unresolved, Index, SizeParam, Tensor, Builtin };

struct Expr {
  ExprKind kind;
  SourceRange range;        // the whole expression
  SourceRange name_range;   // Name/Access: the name token; Unary/Binary: the operator
  std::string name;         // Name/Access
  TokenKind op = TokenKind::End;  // Unary/Binary: the operator; MinMax: KwMin or KwMax
  int64_t int_value = 0;
  double float_value = 0;
  ScalarType cast_type = ScalarType::Float32;  // Cast
  std::vector<std::unique_ptr<Expr>> args;     // subscripts, call arguments or operands

  // Sema's annotations.
  NameRef ref = NameRef::Unresolved;
  int ref_id = -1;  // index into the def's tensors, size parameters, the statement's
                    // indices, or the builtins table
  ScalarType type = ScalarType::Float32;

  Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
  std::unique_ptr<Expr> clone() const;
};
using ExprPtr = std::unique_ptr<Expr>;

// A size in a tensor's type: a size parameter or a literal.
struct Dim {
  std::string name;  // empty for a literal
  int64_t value = 0; // a literal's value; kBadLiteral when the literal was already reported
  static constexpr int64_t kBadLiteral = -1;
  SourceRange range;
};

struct TensorDecl {
  std::optional<ScalarType> type;  // outputs may leave type and shape to inference
  std::vector<Dim> dims;
  bool has_shape = false;          // "float(M) X" vs "float X"
  std::string name;
  SourceRange name_range;
  SourceRange range;
};

enum class ReduceOp : uint8_t { None, Sum, Product, Min, Max };

struct WhereClause {
  enum Kind : uint8_t { Range, Let, Exists } kind = Range;
  std::string name;        // Range, Let
  SourceRange name_range;
  ExprPtr lo, hi;          // Range: lo:hi (half-open)
  ExprPtr value;           // Let: the bound expression; Exists: the access
  SourceRange range;
};

struct IndexName {
  std::string name;
  SourceRange range;
};

struct Stmt {
  std::string lhs;
  SourceRange lhs_range;
  std::vector<IndexName> lhs_indices;
  bool lhs_has_parens = false;
  ReduceOp reduce = ReduceOp::None;
  bool init = false;  // the '!' of op=!
  SourceRange assign_range;
  ExprPtr rhs;
  std::optional<std::string> equivalent_name;  // <=> NAME(args): checked, then ignored
  std::vector<ExprPtr> equivalent_args;
  std::vector<WhereClause> where;
  SourceRange range;
};

struct Def {
  std::string name;
  SourceRange name_range;
  // Set by the parser when it had to skip part of the def. Sema then stays quiet about
  // what the skipped text may have declared or used, so one mistake gives one error.
  bool header_incomplete = false;           // a parameter or output could not be parsed
  std::vector<IndexName> dropped_statements;  // left-hand tensors of unparsable statements
  std::vector<TensorDecl> params;
  std::vector<TensorDecl> outputs;
  std::vector<Stmt> stmts;
  SourceRange range;
};

struct Program {
  std::vector<Def> defs;
};

std::string_view reduce_op_spelling(ReduceOp op, bool init);  // "+=!", "=", ...

// The identity of a reduction in element type t (LANGUAGE.md §3): 0, 1, the largest or
// the smallest value; floats in `f` (min/max give +/-infinity), integers and bools in `i`.
struct ScalarConstant {
  double f = 0;
  int64_t i = 0;
};
ScalarConstant reduce_identity(ReduceOp op, ScalarType t);

}  // namespace tcs::ast
