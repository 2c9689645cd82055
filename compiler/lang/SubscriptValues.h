#pragma once
// The values a computed subscript takes (one the front end could not solve: `y / 2`,
// `c * 4 + x % 2`) when every index of its statement runs over its range, by interval
// arithmetic. A compiled kernel checks such a subscript on every read unless these
// values fall inside the tensor: the check keeps LLVM from vectorising the loop.
#include <optional>
#include <utility>
#include <vector>

#include "lang/Ast.h"
#include "lang/Shapes.h"

namespace tcs {

// Over + - * (and unary -), / and % by a positive constant, min, max, ?: (both
// branches), integer casts, literals, indices and sizes, in signed integer types; nullopt
// for anything else (a tensor read, a call, a float, a value that may overflow its type).
std::optional<std::pair<int64_t, int64_t>> subscript_values(const ast::Expr& e, const std::vector<IndexRange>& indices,
                                                            const SizeMap& sizes);

}  // namespace tcs
