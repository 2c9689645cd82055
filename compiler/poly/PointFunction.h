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

  int64_t operator()(const int64_t* x) const { return linear_ ? linear_eval(x) : eval(root_, x); }

 private:
  struct Node {
    int op = 0;  // isl_ast_expr_op_type, or -1 (integer), -2 (input dimension)
    int64_t value = 0;  // the integer, or the dimension
    std::vector<int> args;
  };
  // Most schedule members and tile coordinates are sums of iterators and of floor
  // divisions of such sums by constants: held as one, they are evaluated without walking
  // the tree (the explorers evaluate a dozen functions at each of 100 000 points).
  struct Affine {
    int64_t constant = 0;
    std::vector<std::pair<int, int64_t>> terms;  // (dimension, coefficient)
  };
  struct Quotient {  // coefficient * floor(of / divisor)
    Affine of;
    int64_t divisor = 1, coefficient = 1;
  };
  int add(isl_ast_expr* e);
  int64_t eval(int node, const int64_t* x) const;
  static PointFunction from(isl_ast_expr* e);
  bool linearize(int node, int64_t scale, bool inside_division, Affine& sum, std::vector<Quotient>& quotients) const;
  int64_t linear_eval(const int64_t* x) const;

  std::vector<Node> nodes_;
  int root_ = -1;
  bool linear_ = false;  // the function is affine_ plus quotients_
  Affine affine_;
  std::vector<Quotient> quotients_;
};

}  // namespace tcs::poly
