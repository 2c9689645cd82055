#pragma once
// What the tests of loop-nest passes on nests built by hand share: a def of two statements
// over N = 8, the second reading what the first writes, and a statement call.
#include <memory>

#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs::testing_support {

// A(i) = X(i) and B(i) = A(i) + 1 over N = 8: S1 reads what S0 writes.
struct TwoStatements {
  std::shared_ptr<CheckedFile> checked = check_source("k.tc", "def f(float(N) X) -> (A, B) {\n  A(i) = X(i)\n  B(i) = A(i) + 1\n}\n");
  const SemaDef& def = checked->defs.at(0);
  DefShapes shapes = *shapes_evaluate(def, {{"N", 8}});
};

// Statement `stmt` (LoopNest::stmts index) at index value `at`.
inline LoopNode call(int stmt, LExpr at) {
  LoopNode n;
  n.kind = LoopNode::Kind::Call;
  n.stmt = stmt;
  n.args = {std::move(at)};
  return n;
}

}  // namespace tcs::testing_support
