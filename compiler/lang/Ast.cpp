#include "lang/Ast.h"

#include <limits>

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

ScalarConstant reduce_identity(ReduceOp op, ScalarType t) {
  ScalarConstant v;
  bool fl = scalar_type_is_float(t);
  switch (op) {
    case ReduceOp::Sum: case ReduceOp::None: break;
    case ReduceOp::Product: v.f = 1, v.i = 1; break;
    case ReduceOp::Min:
      if (fl) v.f = std::numeric_limits<double>::infinity();
      else if (t == ScalarType::UInt64) v.i = -1;  // all ones: the largest uint64
      else if (t == ScalarType::Int64) v.i = std::numeric_limits<int64_t>::max();
      else v.i = (int64_t(1) << (scalar_type_bits(t) - (scalar_type_is_signed(t) ? 1 : 0))) - 1;
      break;
    case ReduceOp::Max:
      if (fl) v.f = -std::numeric_limits<double>::infinity();
      else v.i = scalar_type_is_signed(t) ? -(int64_t(1) << (scalar_type_bits(t) - 1)) : 0;
      break;
  }
  return v;
}

}  // namespace tcs::ast
