#pragma once
// Private to compiler/poly: a quasi-affine function of a statement's iterators (a schedule
// member, a dependence's nearest sink) or a set's membership test, taken from isl once as
// an AST expression and then evaluated at integer points in plain C++. Scanning a hundred
// thousand points through isl's tableaux takes seconds; this takes milliseconds.
#include <isl/cpp.h>

#include <cstdint>
#include <vector>

namespace tcs::poly {

class PointFunction {
 public:
  PointFunction() = default;
  // Member `i` of `f` as a function of its input dimensions, valid at the points of `where`
  // (the statement's domain); points outside the function's domain give garbage.
  static PointFunction member(const isl::pw_multi_aff& f, int i, const isl::set& where);
  // 1 at the points of `s`, 0 elsewhere in `where`.
  static PointFunction membership(const isl::set& s, const isl::set& where);

  int64_t operator()(const int64_t* x) const { return eval(root_, x); }

 private:
  struct Node {
    int op = 0;  // isl_ast_expr_op_type, or -1 (integer), -2 (input dimension)
    int64_t value = 0;  // the integer, or the dimension
    std::vector<int> args;
  };
  int add(isl_ast_expr* e);
  int64_t eval(int node, const int64_t* x) const;
  static PointFunction from(isl_ast_expr* e);

  std::vector<Node> nodes_;
  int root_ = -1;
};

}  // namespace tcs::poly
