#pragma once
// Round-based largest-interval range inference (LANGUAGE.md §4) for one statement.
#include "lang/Diagnostic.h"
#include "lang/Sema.h"

namespace tcs {

// Collects the statement's access constraints, solves every index's interval in rounds,
// and reports unsolvable indices (errors) and unprovable preconditions (warnings).
// Indices bounded by `where v in lo:hi` arrive already solved. Returns false on error.
bool ranges_infer_statement(const SemaDef& def, SemaStmt& stmt, const SourceFile& file, Diagnostics& diags);

// The worst-case interval of an affine access subscript given solved index intervals.
std::pair<SymExpr, SymExpr> constraint_bounds(const AccessConstraint& c, const std::vector<SemaIndex>& indices);

}  // namespace tcs
