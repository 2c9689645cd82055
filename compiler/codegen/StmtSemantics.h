#pragma once
// What a polyhedral statement does, in the terms every backend needs: which tensor it
// writes, whether it combines with the old value (a reduction) and with what identity.
// The C text, the LLVM IR and (later) CUDA all read this, so they cannot disagree.
#include <cstdint>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

struct StmtSemantics {
  int lhs_tensor = -1;
  ScalarType type = ScalarType::Float32;  // of the left-hand tensor
  ast::ReduceOp op = ast::ReduceOp::None;
  bool is_init = false;   // writes the identity
  bool combines = false;  // new = old op rhs (else new = rhs)
  // The identity of `op` in `type`: floats in `f`, integers and bools in `i`.
  double identity_f = 0;
  int64_t identity_i = 0;
};

StmtSemantics stmt_semantics(const SemaDef& def, const PolyStmt& s);

// Where a float copy of an output starts that is combined into it afterwards (a total's
// parts): the identity, except that a sum starts at -0, which added leaves every value as
// it was, -0 included (+0 would turn an element the statement never writes from -0 to +0).
// Integer copies start at the identity.
double copy_start_f(const StmtSemantics& s);

// "float", "int32_t", ... for the C text.
const char* c_type_name(ScalarType t);

}  // namespace tcs
