#pragma once
// Recursive-descent parser for comprehension files (LANGUAGE.md §2). It recovers from an
// error by skipping to the next point where a statement or a def can begin, so one pass
// reports every syntax error of a file.
#include <vector>

#include "lang/Ast.h"
#include "lang/Diagnostic.h"
#include "lang/Token.h"

namespace tcs {

ast::Program parse(const SourceFile& file, const std::vector<Token>& tokens, Diagnostics& diags);

}  // namespace tcs
