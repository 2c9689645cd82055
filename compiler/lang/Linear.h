#pragma once
// An integer expression of a statement split into sum(coef * index) + rest, where rest
// depends on sizes only: what an access subscript or a guard's comparison is to range
// inference, the polyhedral model and the domain guard.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "lang/Ast.h"
#include "lang/SymExpr.h"

namespace tcs {

// sum(coef * index) + rest; `affine` is false when an index appears non-linearly or under
// a tensor read.
struct Linear {
  bool affine = true;
  bool data_dependent = false;
  std::map<int, int64_t> coefs;
  SymExpr rest;
  std::vector<int> indices;  // every index mentioned, in first-seen order

  void mention(int ix) {
    if (std::find(indices.begin(), indices.end(), ix) == indices.end()) indices.push_back(ix);
  }
  void absorb_mentions(const Linear& o) {
    for (int ix : o.indices) mention(ix);
    data_dependent |= o.data_dependent;
  }
  bool has_indices() const { return !coefs.empty(); }
};

// `e` (sema-annotated) as a Linear; affine = false when it is not one.
Linear linearize(const ast::Expr& e);

}  // namespace tcs
