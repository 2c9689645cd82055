#pragma once
// Let bindings (`where j = i + 1`) are substituted in place before names are resolved, so
// every later stage sees plain expressions of index variables (LANGUAGE.md §2).
#include <map>
#include <optional>
#include <string>

#include "lang/Ast.h"
#include "lang/Diagnostic.h"

namespace tcs {

struct LetCycle {
  SourceRange range;
  std::string message;  // "the let bindings 'a' and 'b' refer to each other"
};

// Expands the bindings into each other, then replaces their uses in the statement's
// right-hand side, exists clauses and equivalence hint; warns about unused bindings.
// Returns the cycle, and substitutes nothing, when bindings refer to themselves.
std::optional<LetCycle> lets_substitute(ast::Stmt& stmt,
                                        const std::map<std::string, const ast::WhereClause*, std::less<>>& lets,
                                        Diagnostics& diags);

}  // namespace tcs
