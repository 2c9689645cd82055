#pragma once
// A reduction's reads of its own left-hand tensor. One that reads the very element it
// reduces into (`S += X(i) * S`) would see the result so far or the value before the
// statement, as the order of the reduction steps falls, and the language leaves that order
// open: the interpreter takes the one, compiled code the other. A read whose subscript is a
// left-hand index plus a nonzero constant in some dimension (a recurrence, `H(t, j) +=
// H(t - 1, k) * U(k, j)`) reads rows finished before and is fine.
#include "lang/Sema.h"

namespace tcs {

struct OwnOutputReads {
  const ast::Expr* same = nullptr;   // the first read whose subscripts are the left-hand indices (as linear forms)
  const ast::Expr* maybe = nullptr;  // the first that may land on that element for some values (`S(0)`, `S(j, i)`)
};

// The reads of `s`'s left-hand tensor in `rhs` (resolved; `s` the statement being checked).
OwnOutputReads own_output_reads(const SemaStmt& s, const ast::Expr& rhs);

// The first read of tensor `t` in `e` (resolved), or null.
const ast::Expr* first_read(const ast::Expr& e, int t);

}  // namespace tcs
