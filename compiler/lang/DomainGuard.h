#pragma once
// A reduction written `cond ? value : identity` adds the identity wherever cond fails:
// a padded convolution's `(y + r - 1 >= 0 && y + r - 1 < H && ...) ? I(...) * W(...) : 0`.
// When cond is a conjunction of affine comparisons of indices and sizes, those points can
// leave the statement's domain instead, and what remains is a plain contraction whose
// reads the guard keeps inside their tensors: no per-point test, no checked read.
#include "lang/Sema.h"

namespace tcs {

// Sets stmt.domain_guard and stmt.guarded_value when the statement has that shape (nested
// `?:` with the identity in every else branch give one conjunction), and marks the
// guarded reads of the value that the guard keeps inside their tensors (kept_inside).
// Runs after range inference, which solved the statement's index ranges.
void find_domain_guard(const SemaDef& def, SemaStmt& stmt);

}  // namespace tcs
