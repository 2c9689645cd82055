#include "codegen/StmtSemantics.h"

#include <limits>

namespace tcs {

StmtSemantics stmt_semantics(const SemaDef& def, const PolyStmt& s) {
  const SemaStmt& st = def.stmts[size_t(s.source_stmt)];
  const ast::Stmt& a = *st.ast;
  StmtSemantics r;
  r.lhs_tensor = st.lhs_tensor;
  r.type = def.tensors[size_t(st.lhs_tensor)].type;
  r.op = a.reduce;
  r.is_init = s.is_init;
  bool reduces = a.reduce != ast::ReduceOp::None && (st.indices.size() > size_t(st.lhs_rank) || !a.init);
  r.combines = !s.is_init && reduces;
  bool fl = scalar_type_is_float(r.type);
  switch (a.reduce) {
    case ast::ReduceOp::Product: r.identity_f = 1, r.identity_i = 1; break;
    case ast::ReduceOp::Min:
      if (fl) r.identity_f = std::numeric_limits<double>::infinity();
      else if (r.type == ScalarType::UInt64) r.identity_i = -1;
      else if (r.type == ScalarType::Int64) r.identity_i = std::numeric_limits<int64_t>::max();
      else r.identity_i = (int64_t(1) << (scalar_type_bits(r.type) - (scalar_type_is_signed(r.type) ? 1 : 0))) - 1;
      break;
    case ast::ReduceOp::Max:
      if (fl) r.identity_f = -std::numeric_limits<double>::infinity();
      else r.identity_i = scalar_type_is_signed(r.type) ? -(int64_t(1) << (scalar_type_bits(r.type) - 1)) : 0;
      break;
    default: break;
  }
  return r;
}

std::vector<int64_t> tensor_strides(const DefShapes& shapes, int t) {
  const auto& ext = shapes.tensors[size_t(t)].extent;
  std::vector<int64_t> s(ext.size(), 1);
  for (size_t d = ext.size(); d-- > 1;) s[d - 1] = s[d] * ext[d];
  return s;
}

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
