#include "codegen/StmtSemantics.h"

namespace tcs {

StmtSemantics stmt_semantics(const SemaDef& def, const PolyStmt& s) {
  const SemaStmt& st = def.stmts[size_t(s.source_stmt)];
  StmtSemantics r;
  r.lhs_tensor = st.lhs_tensor;
  r.type = def.tensors[size_t(st.lhs_tensor)].type;
  r.op = st.ast->reduce;
  r.is_init = s.is_init;
  r.combines = !s.is_init && st.reduces();
  ast::ScalarConstant id = ast::reduce_identity(r.op, r.type);
  r.identity_f = id.f;
  r.identity_i = id.i;
  return r;
}

double copy_start_f(const StmtSemantics& s) { return s.op == ast::ReduceOp::Sum ? -0.0 : s.identity_f; }

const char* c_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::UInt8: return "uint8_t";
    case ScalarType::UInt16: return "uint16_t";
    case ScalarType::UInt32: return "uint32_t";
    case ScalarType::UInt64: return "uint64_t";
    case ScalarType::Int8: return "int8_t";
    case ScalarType::Int16: return "int16_t";
    case ScalarType::Int32: return "int32_t";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::Float16: return "_Float16";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
  }
  return "?";
}

}  // namespace tcs
