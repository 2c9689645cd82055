#include "lang/Ast.h"

namespace tcs::ast {

std::unique_ptr<Expr> Expr::clone() const {
  auto e = std::make_unique<Expr>(kind, range);
  e->name_range = name_range;
  e->name = name;
  e->op = op;
  e->int_value = int_value;
  e->float_value = float_value;
  e->cast_type = cast_type;
  e->ref = ref;
  e->ref_id = ref_id;
  e->type = type;
  for (const auto& a : args) e->args.push_back(a->clone());
  return e;
}

std::string_view reduce_op_spelling(ReduceOp op, bool init) {
  switch (op) {
    case ReduceOp::None: return "=";
    case ReduceOp::Sum: return init ? "+=!" : "+=";
    case ReduceOp::Product: return init ? "*=!" : "*=";
    case ReduceOp::Min: return init ? "min=!" : "min=";
    case ReduceOp::Max: return init ? "max=!" : "max=";
  }
  return "?";
}

}  // namespace tcs::ast
