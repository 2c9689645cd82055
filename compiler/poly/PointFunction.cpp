// isl writes the function as an AST expression (with its floor divisions, minima and
// selects); the iterators become parameters d0, d1, ... first, so the expression names
// them and a build made from the domain may simplify with what the domain implies.
#include "poly/PointFunction.h"

#include <isl/ast.h>
#include <isl/ast_build.h>

#include <stdexcept>
#include <string>

#include "support/IntDiv.h"

namespace tcs::poly {
namespace {

std::string dim_name(unsigned i) { return "d" + std::to_string(i); }

// The set with its dimensions named d0, d1, ... and then made parameters.
isl_set* as_parameters(const isl::set& s) {
  isl_set* r = s.copy();
  unsigned n = unsigned(isl_set_dim(r, isl_dim_set));
  for (unsigned i = 0; i < n; ++i) r = isl_set_set_dim_name(r, isl_dim_set, i, dim_name(i).c_str());
  return isl_set_move_dims(r, isl_dim_param, 0, isl_dim_set, 0, n);
}

}  // namespace

PointFunction PointFunction::member(const isl::pw_multi_aff& f, int i, const isl::set& where) {
  isl_pw_aff* pa = isl_pw_multi_aff_get_pw_aff(f.get(), i);
  unsigned n = unsigned(isl_pw_aff_dim(pa, isl_dim_in));
  for (unsigned k = 0; k < n; ++k) pa = isl_pw_aff_set_dim_id(pa, isl_dim_in, k, isl_id_alloc(f.ctx().get(), dim_name(k).c_str(), nullptr));
  pa = isl_pw_aff_move_dims(pa, isl_dim_param, 0, isl_dim_in, 0, n);
  isl_ast_build* build = isl_ast_build_from_context(as_parameters(where));
  PointFunction r = from(isl_ast_build_expr_from_pw_aff(build, pa));
  isl_ast_build_free(build);
  return r;
}

PointFunction PointFunction::membership(const isl::set& s, const isl::set& where) {
  isl_ast_build* build = isl_ast_build_from_context(as_parameters(where));
  PointFunction r = from(isl_ast_build_expr_from_set(build, as_parameters(s)));
  isl_ast_build_free(build);
  return r;
}

PointFunction PointFunction::from(isl_ast_expr* e) {
  if (!e) throw std::runtime_error("isl could not write a point function");
  PointFunction r;
  r.root_ = r.add(e);
  isl_ast_expr_free(e);
  r.linear_ = r.linearize(r.root_, 1, false, r.affine_, r.quotients_);
  return r;
}

namespace {
int64_t affine_at(const std::vector<std::pair<int, int64_t>>& terms, int64_t constant, const int64_t* x) {
  for (const auto& [d, c] : terms) constant += c * x[d];
  return constant;
}
void add_term(std::vector<std::pair<int, int64_t>>& terms, int d, int64_t c) {
  for (auto& t : terms)
    if (t.first == d) return void(t.second += c);
  terms.emplace_back(d, c);
}
}  // namespace

// Adds `scale` times node `index` to `sum` and `quotients`; false when the node is not a
// sum of iterators, constants and (outside another division) floor divisions by constants.
bool PointFunction::linearize(int index, int64_t scale, bool inside_division, Affine& sum, std::vector<Quotient>& quotients) const {
  const Node& n = nodes_[size_t(index)];
  auto constant_of = [&](int i, int64_t& v) {
    const Node& a = nodes_[size_t(i)];
    if (a.op != -1) return false;
    v = a.value;
    return true;
  };
  switch (n.op) {
    case -1: sum.constant += scale * n.value; return true;
    case -2: add_term(sum.terms, int(n.value), scale); return true;
    case isl_ast_expr_op_minus: return linearize(n.args[0], -scale, inside_division, sum, quotients);
    case isl_ast_expr_op_add:
      return linearize(n.args[0], scale, inside_division, sum, quotients) && linearize(n.args[1], scale, inside_division, sum, quotients);
    case isl_ast_expr_op_sub:
      return linearize(n.args[0], scale, inside_division, sum, quotients) && linearize(n.args[1], -scale, inside_division, sum, quotients);
    case isl_ast_expr_op_mul: {
      int64_t c;
      if (constant_of(n.args[0], c)) return linearize(n.args[1], scale * c, inside_division, sum, quotients);
      if (constant_of(n.args[1], c)) return linearize(n.args[0], scale * c, inside_division, sum, quotients);
      return false;
    }
    case isl_ast_expr_op_fdiv_q:
    case isl_ast_expr_op_pdiv_q: {
      Quotient q;
      std::vector<Quotient> none;
      if (inside_division || !constant_of(n.args[1], q.divisor) || q.divisor <= 0 ||
          !linearize(n.args[0], 1, true, q.of, none))
        return false;
      q.coefficient = scale;
      quotients.push_back(std::move(q));
      return true;
    }
    default: return false;
  }
}

int64_t PointFunction::linear_eval(const int64_t* x) const {
  int64_t r = affine_at(affine_.terms, affine_.constant, x);
  for (const Quotient& q : quotients_) r += q.coefficient * floor_div(affine_at(q.of.terms, q.of.constant, x), q.divisor);
  return r;
}

int PointFunction::add(isl_ast_expr* e) {
  Node n;
  switch (isl_ast_expr_get_type(e)) {
    case isl_ast_expr_int: {
      isl_val* v = isl_ast_expr_get_val(e);
      n.op = -1;
      n.value = isl_val_get_num_si(v);
      isl_val_free(v);
      break;
    }
    case isl_ast_expr_id: {
      isl_id* id = isl_ast_expr_get_id(e);
      n.op = -2;
      n.value = std::stoll(isl_id_get_name(id) + 1);  // "d3" -> 3
      isl_id_free(id);
      break;
    }
    case isl_ast_expr_op: {
      n.op = isl_ast_expr_op_get_type(e);
      for (int i = 0, c = int(isl_ast_expr_op_get_n_arg(e)); i < c; ++i) {
        isl_ast_expr* a = isl_ast_expr_op_get_arg(e, i);
        n.args.push_back(add(a));
        isl_ast_expr_free(a);
      }
      break;
    }
    default: throw std::runtime_error("unexpected isl AST expression");
  }
  nodes_.push_back(std::move(n));
  return int(nodes_.size()) - 1;
}

int64_t PointFunction::eval(int index, const int64_t* x) const {
  const Node& n = nodes_[size_t(index)];
  auto arg = [&](size_t i) { return eval(n.args[i], x); };
  switch (n.op) {
    case -1: return n.value;
    case -2: return x[n.value];
    case isl_ast_expr_op_and:
    case isl_ast_expr_op_and_then: return arg(0) && arg(1);
    case isl_ast_expr_op_or:
    case isl_ast_expr_op_or_else: return arg(0) || arg(1);
    case isl_ast_expr_op_max: {
      int64_t r = arg(0);
      for (size_t i = 1; i < n.args.size(); ++i) r = std::max(r, arg(i));
      return r;
    }
    case isl_ast_expr_op_min: {
      int64_t r = arg(0);
      for (size_t i = 1; i < n.args.size(); ++i) r = std::min(r, arg(i));
      return r;
    }
    case isl_ast_expr_op_minus: return -arg(0);
    case isl_ast_expr_op_add: return arg(0) + arg(1);
    case isl_ast_expr_op_sub: return arg(0) - arg(1);
    case isl_ast_expr_op_mul: return arg(0) * arg(1);
    case isl_ast_expr_op_div: return arg(0) / arg(1);  // exact
    case isl_ast_expr_op_fdiv_q:
    case isl_ast_expr_op_pdiv_q: return floor_div(arg(0), arg(1));
    case isl_ast_expr_op_pdiv_r:
    case isl_ast_expr_op_zdiv_r: return arg(0) % arg(1);
    case isl_ast_expr_op_cond:
    case isl_ast_expr_op_select: return arg(0) ? arg(1) : arg(2);
    case isl_ast_expr_op_eq: return arg(0) == arg(1);
    case isl_ast_expr_op_le: return arg(0) <= arg(1);
    case isl_ast_expr_op_lt: return arg(0) < arg(1);
    case isl_ast_expr_op_ge: return arg(0) >= arg(1);
    case isl_ast_expr_op_gt: return arg(0) > arg(1);
    default: throw std::runtime_error("unexpected isl AST operation " + std::to_string(n.op));
  }
}

}  // namespace tcs::poly
