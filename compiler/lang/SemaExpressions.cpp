// The typing of a def's expressions: names resolved to tensors, sizes, indices and
// builtins, each expression given its scalar type, subscripts and size expressions
// checked (DefChecker, lang/DefChecker.h).
#include <optional>
#include <string>
#include <vector>

#include "lang/DefChecker.h"

namespace tcs::sema_detail {

std::vector<std::string> DefChecker::known_names() const {
  std::vector<std::string> v;
  for (const SemaTensor& t : out_.tensors) v.push_back(t.name);
  for (const std::string& p : out_.size_params) v.push_back(p);
  for (const Builtin& b : builtins()) v.emplace_back(b.name);
  return v;
}

std::optional<ScalarType> DefChecker::read_tensor(StmtScope& sc, Expr& e, int t) {
  SemaTensor& T = out_.tensors[size_t(t)];
  e.ref = NameRef::Tensor;
  e.ref_id = t;
  if (broken_.count(T.name) && T.first_writer < 0) {  // its definition was already reported
    sc.failed = true;
    return std::nullopt;
  }
  if (T.role != TensorRole::Input && T.first_writer < 0) {
    bool own = sc.s->lhs_tensor == t;
    stmt_error(sc, e.name_range, quote(T.name) + " is read before any statement writes it" +
                                     std::string(own ? "; a statement cannot read what it is defining" : ""));
    return std::nullopt;
  }
  if (T.shape_known && T.rank() != int(e.args.size())) {
    std::string how = e.kind == ExprKind::Name ? "without subscripts" : "with " + std::to_string(e.args.size()) +
                                                                          " subscript" + (e.args.size() == 1 ? "" : "s");
    stmt_error(sc, e.range, quote(T.name) + " has " + std::to_string(T.rank()) + " dimension" +
                                (T.rank() == 1 ? "" : "s") + " but is read " + how);
    return std::nullopt;
  }
  bool ok = true;
  for (auto& a : e.args) {
    auto at = resolve(sc, *a);
    if (!at) { ok = false; continue; }
    if (!scalar_type_is_integer(*at)) {
      stmt_error(sc, a->range, "subscript " + quote(file_.slice(a->range)) + " of " + quote(T.name) +
                                   " is " + std::string(scalar_type_name(*at)) + "; subscripts must be integers" +
                                   (scalar_type_is_float(*at) ? " (cast with int32(...))" : ""));
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return e.type = T.type;
}

std::optional<ScalarType> DefChecker::resolve(StmtScope& sc, Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLiteral: return e.type = ScalarType::Int32;
    case ExprKind::FloatLiteral: return e.type = ScalarType::Float32;
    case ExprKind::Name: {
      if (auto it = sc.index_ids.find(e.name); it != sc.index_ids.end()) {
        e.ref = NameRef::Index;
        e.ref_id = it->second;
        return e.type = ScalarType::Int32;
      }
      if (int p = out_.find_size_param(e.name); p >= 0) {
        e.ref = NameRef::SizeParam;
        e.ref_id = p;
        return e.type = ScalarType::Int32;
      }
      if (int t = out_.find_tensor(e.name); t >= 0) return read_tensor(sc, e, t);
      if (builtin_find(e.name)) {
        stmt_error(sc, e.range, quote(e.name) + " is a builtin function; call it as " + e.name + "(...)");
        return std::nullopt;
      }
      e.ref = NameRef::Index;
      e.ref_id = add_index(sc, e.name, e.range, false);
      return e.type = ScalarType::Int32;
    }
    case ExprKind::Access: {
      if (int t = out_.find_tensor(e.name); t >= 0) return read_tensor(sc, e, t);
      if (const Builtin* b = builtin_find(e.name)) return resolve_builtin(sc, e, *b);
      if (out_.find_size_param(e.name) >= 0) {
        stmt_error(sc, e.name_range, quote(e.name) + " is a size parameter, not a tensor or function");
        return std::nullopt;
      }
      if (sc.index_ids.count(e.name)) {
        stmt_error(sc, e.name_range, quote(e.name) + " is an index variable, not a tensor or function");
        return std::nullopt;
      }
      for (auto& a : e.args) resolve(sc, *a);
      if (def_.header_incomplete || broken_.count(e.name)) {  // maybe a parameter the parser could not read
        sc.failed = true;
        return std::nullopt;
      }
      if (auto line = first_lhs_line_.find(e.name); line != first_lhs_line_.end()) {
        stmt_error(sc, e.name_range, quote(e.name) + " is read before any statement writes it; it is first written on line " +
                                         std::to_string(line->second));
        return std::nullopt;
      }
      if (auto t = scalar_type_suggestion(e.name)) {
        stmt_error(sc, e.name_range, quote(e.name) + " is not a type; use " + std::string(*t) + " to convert");
        return std::nullopt;
      }
      std::string msg = "unknown tensor or function " + quote(e.name);
      if (e.name == "relu") msg += "; there is no relu: write fmax(x, 0)";
      else if (e.name == "sigmoid") msg += "; there is no sigmoid: write 1 / (1 + exp(-x))";
      else if (e.name == "abs") msg += "; use fabs";
      else msg += suggest(e.name, known_names());
      stmt_error(sc, e.name_range, msg);
      return std::nullopt;
    }
    case ExprKind::Unary: {
      auto t = resolve(sc, *e.args[0]);
      if (!t) return std::nullopt;
      if (e.op == TokenKind::Bang) {
        if (*t != ScalarType::Bool) {
          stmt_error(sc, e.args[0]->range, "'!' needs a bool operand, but " + quote(file_.slice(e.args[0]->range)) +
                                               " is " + std::string(scalar_type_name(*t)));
          return std::nullopt;
        }
        return e.type = ScalarType::Bool;
      }
      if (!is_numeric(*t)) {
        stmt_error(sc, e.args[0]->range, "'-' needs a number, but " + quote(file_.slice(e.args[0]->range)) + " is bool");
        return std::nullopt;
      }
      return e.type = *t;
    }
    case ExprKind::Binary: return resolve_binary(sc, e);
    case ExprKind::Ternary: {
      auto c = resolve(sc, *e.args[0]);
      auto a = resolve(sc, *e.args[1]);
      auto b = resolve(sc, *e.args[2]);
      if (!c || !a || !b) return std::nullopt;
      if (*c != ScalarType::Bool) {
        stmt_error(sc, e.args[0]->range, "the condition of '?:' must be bool, but " +
                                             quote(file_.slice(e.args[0]->range)) + " is " +
                                             std::string(scalar_type_name(*c)) + "; compare it, e.g. '!= 0'");
        return std::nullopt;
      }
      if ((*a == ScalarType::Bool) != (*b == ScalarType::Bool)) {
        stmt_error(sc, e.range, "the branches of '?:' mix bool and " +
                                    std::string(scalar_type_name(*a == ScalarType::Bool ? *b : *a)));
        return std::nullopt;
      }
      return e.type = *a == ScalarType::Bool ? ScalarType::Bool : scalar_type_promote(*a, *b);
    }
    case ExprKind::Cast: {
      auto t = resolve(sc, *e.args[0]);
      if (!t) return std::nullopt;
      return e.type = e.cast_type;
    }
    case ExprKind::MinMax: {
      auto a = resolve(sc, *e.args[0]);
      auto b = resolve(sc, *e.args[1]);
      if (!a || !b) return std::nullopt;
      for (size_t i = 0; i < 2; ++i) {
        if (is_numeric(i == 0 ? *a : *b)) continue;
        stmt_error(sc, e.args[i]->range, quote(e.name) + " needs numbers, but " +
                                             quote(file_.slice(e.args[i]->range)) + " is bool");
        return std::nullopt;
      }
      return e.type = scalar_type_promote(*a, *b);
    }
  }
  return std::nullopt;
}

std::optional<ScalarType> DefChecker::resolve_builtin(StmtScope& sc, Expr& e, const Builtin& b) {
  e.ref = NameRef::Builtin;
  e.ref_id = builtin_index(&b);
  if (int(e.args.size()) != b.arity) {
    stmt_error(sc, e.range, quote(b.name) + " takes " + std::to_string(b.arity) + " argument" +
                                (b.arity == 1 ? "" : "s") + ", given " + std::to_string(e.args.size()));
    for (auto& a : e.args) resolve(sc, *a);
    return std::nullopt;
  }
  // Math is done in floating point: integers promote to float32, floats keep the widest.
  std::optional<ScalarType> widest;
  bool ok = true;
  for (auto& a : e.args) {
    auto t = resolve(sc, *a);
    if (!t) { ok = false; continue; }
    // A bool argument counts as the number 0 or 1, as in Tensor Comprehensions.
    if (scalar_type_is_float(*t)) widest = widest ? scalar_type_promote(*widest, *t) : *t;
  }
  if (!ok) return std::nullopt;
  return e.type = widest.value_or(ScalarType::Float32);
}

std::optional<ScalarType> DefChecker::resolve_binary(StmtScope& sc, Expr& e) {
  auto a = resolve(sc, *e.args[0]);
  auto b = resolve(sc, *e.args[1]);
  if (!a || !b) return std::nullopt;
  std::string op = std::string(file_.slice(e.name_range));
  auto describe = [&](const Expr& x, ScalarType t) {
    return quote(file_.slice(x.range)) + " is " + std::string(scalar_type_name(t));
  };
  switch (e.op) {
    case TokenKind::AndAnd:
    case TokenKind::OrOr:
      for (int i = 0; i < 2; ++i) {
        ScalarType t = i == 0 ? *a : *b;
        if (t != ScalarType::Bool) {
          stmt_error(sc, e.args[size_t(i)]->range, quote(op) + " needs bool operands, but " + describe(*e.args[size_t(i)], t));
          return std::nullopt;
        }
      }
      return e.type = ScalarType::Bool;
    case TokenKind::EqEq:
    case TokenKind::NotEq:
      if (*a == ScalarType::Bool && *b == ScalarType::Bool) return e.type = ScalarType::Bool;
      [[fallthrough]];
    case TokenKind::Less:
    case TokenKind::Greater:
    case TokenKind::LessEq:
    case TokenKind::GreaterEq:
      for (int i = 0; i < 2; ++i) {
        ScalarType t = i == 0 ? *a : *b;
        if (!is_numeric(t)) {
          stmt_error(sc, e.args[size_t(i)]->range, quote(op) + " compares numbers, but " + describe(*e.args[size_t(i)], t));
          return std::nullopt;
        }
      }
      return e.type = ScalarType::Bool;
    default: break;
  }
  promote_bool_operand(a, b);
  for (int i = 0; i < 2; ++i) {
    ScalarType t = i == 0 ? *a : *b;
    if (!is_numeric(t)) {
      stmt_error(sc, e.args[size_t(i)]->range, quote(op) + " needs numbers, but " + describe(*e.args[size_t(i)], t));
      return std::nullopt;
    }
    if (e.op == TokenKind::Percent && scalar_type_is_float(t)) {
      stmt_error(sc, e.args[size_t(i)]->range, "'%' needs integers, but " + describe(*e.args[size_t(i)], t) +
                                                   "; use fmod(a, b) for floats");
      return std::nullopt;
    }
  }
  return e.type = scalar_type_promote(*a, *b);
}

// Tensor Comprehensions promotes a bool operand of arithmetic to the other operand's
// type (0 or 1); two bools stay an error, since their sum would have no type.
void DefChecker::promote_bool_operand(std::optional<ScalarType>& a, std::optional<ScalarType>& b) {
  if (*a == ScalarType::Bool && *b != ScalarType::Bool) a = b;
  else if (*b == ScalarType::Bool && *a != ScalarType::Bool) b = a;
}

// Equivalence hints may name whole tensors; names must exist but nothing else is checked.
void DefChecker::resolve_loose(StmtScope& sc, Expr& e) {
  if (e.kind == ExprKind::Name) {
    if (out_.find_tensor(e.name) >= 0 || out_.find_size_param(e.name) >= 0 || sc.index_ids.count(e.name)) return;
    stmt_error(sc, e.range, "unknown name " + quote(e.name) + " in the equivalence");
    return;
  }
  if (e.kind == ExprKind::Access && out_.find_tensor(e.name) < 0 && !builtin_find(e.name)) {
    stmt_error(sc, e.name_range, "unknown tensor or function " + quote(e.name) + " in the equivalence");
    return;
  }
  for (auto& a : e.args) resolve_loose(sc, *a);
}

// A where-range bound: size parameters and integer literals only.
std::optional<SymExpr> DefChecker::size_expression(StmtScope& sc, Expr& e, const std::string& var) {
  auto bad = [&](const Expr& at, const std::string& why) -> std::optional<SymExpr> {
    stmt_error(sc, at.range, "the bounds of " + quote(var) + " may use only size parameters and integers; " + why);
    return std::nullopt;
  };
  switch (e.kind) {
    case ExprKind::IntLiteral: return SymExpr(e.int_value);
    case ExprKind::Name:
      if (out_.find_size_param(e.name) >= 0) return SymExpr::param(e.name);
      if (out_.find_tensor(e.name) >= 0) {
        read_in_bounds_.insert(e.name);
        return bad(e, quote(e.name) + " is a tensor");
      }
      if (sc.index_ids.count(e.name)) return bad(e, quote(e.name) + " is an index variable");
      return bad(e, quote(e.name) + " is not a size parameter");
    case ExprKind::Access:
      if (out_.find_tensor(e.name) >= 0) read_in_bounds_.insert(e.name);
      return bad(e, quote(file_.slice(e.range)) + (out_.find_tensor(e.name) >= 0 ? " reads a tensor" : " is a call"));
    case ExprKind::Unary:
      if (e.op == TokenKind::Minus) {
        auto v = size_expression(sc, *e.args[0], var);
        if (v) return -*v;
        return std::nullopt;
      }
      return bad(e, quote(file_.slice(e.range)) + " is not an integer expression");
    case ExprKind::MinMax: {
      auto a = size_expression(sc, *e.args[0], var), b = size_expression(sc, *e.args[1], var);
      if (!a || !b) return std::nullopt;
      return e.op == TokenKind::KwMin ? SymExpr::min(*a, *b) : SymExpr::max(*a, *b);
    }
    case ExprKind::Binary: {
      auto a = size_expression(sc, *e.args[0], var);
      auto b = size_expression(sc, *e.args[1], var);
      if (!a || !b) return std::nullopt;
      switch (e.op) {
        case TokenKind::Plus: return *a + *b;
        case TokenKind::Minus: return *a - *b;
        case TokenKind::Star: return *a * *b;
        case TokenKind::Slash:
          if (auto d = b->constant(); d && *d > 0) return SymExpr::floordiv(*a, *d);
          return bad(*e.args[1], "a divisor must be a positive integer");
        default: return bad(e, quote(file_.slice(e.name_range)) + " is not allowed here");
      }
    }
    default: return bad(e, quote(file_.slice(e.range)) + " is not an integer expression");
  }
}

}  // namespace tcs::sema_detail
