#pragma once
// Splits a source file into tokens. Characters that start no token are reported and
// become one Invalid token each, so the parser still sees the rest of the file.
#include <vector>

#include "lang/Diagnostic.h"
#include "lang/Token.h"

namespace tcs {

// The result always ends with one TokenKind::End token.
std::vector<Token> lex(const SourceFile& file, Diagnostics& diags);

}  // namespace tcs
