#include "runtime/Interpreter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

#include "lang/Builtins.h"
#include "runtime/Half.h"

namespace tcs {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;

// A scalar of a statically known type: floats in `f` (already rounded to their type),
// integers and bools in `i` (sign- or zero-extended to 64 bits from their width).
struct Value {
  double f = 0;
  int64_t i = 0;
};

double round_to(double v, ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return double(float(v));
    case ScalarType::Float16: return double(half_to_float(double_to_half(v)));  // one rounding
    default: return v;
  }
}

// Wraps an integer to the width and signedness of t, as two's complement does.
int64_t wrap_to(uint64_t bits, ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return bits != 0;
    case ScalarType::Int8: return int8_t(bits);
    case ScalarType::Int16: return int16_t(bits);
    case ScalarType::Int32: return int32_t(bits);
    case ScalarType::UInt8: return uint8_t(bits);
    case ScalarType::UInt16: return uint16_t(bits);
    case ScalarType::UInt32: return uint32_t(bits);
    default: return int64_t(bits);  // int64, and uint64 kept as its bit pattern
  }
}

// Float to integer saturates and maps NaN to 0 (as CUDA's conversions do): never UB.
int64_t saturate_to_int(double v, ScalarType t) {
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  if (t == ScalarType::UInt64) {
    if (v <= 0) return 0;
    if (v >= 18446744073709551616.0) return int64_t(~uint64_t(0));
    return int64_t(uint64_t(v));
  }
  double lo, hi;
  switch (t) {
    case ScalarType::Int8: lo = -128, hi = 127; break;
    case ScalarType::Int16: lo = -32768, hi = 32767; break;
    case ScalarType::Int32: lo = -2147483648.0, hi = 2147483647.0; break;
    case ScalarType::UInt8: lo = 0, hi = 255; break;
    case ScalarType::UInt16: lo = 0, hi = 65535; break;
    case ScalarType::UInt32: lo = 0, hi = 4294967295.0; break;
    default:
      if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
      if (v < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
      return int64_t(v);
  }
  return int64_t(std::clamp(v, lo, hi));
}

double int_to_double(int64_t i, ScalarType t) {
  return t == ScalarType::UInt64 ? double(uint64_t(i)) : double(i);
}

Value convert(Value v, ScalarType from, ScalarType to) {
  if (from == to) return v;
  Value r;
  bool ff = scalar_type_is_float(from), tf = scalar_type_is_float(to);
  if (to == ScalarType::Bool) {
    r.i = ff ? v.f != 0 : v.i != 0;
  } else if (ff && tf) {
    r.f = round_to(v.f, to);
  } else if (ff) {
    r.i = saturate_to_int(v.f, to);
  } else if (tf) {
    r.f = round_to(int_to_double(v.i, from), to);
  } else {
    r.i = wrap_to(uint64_t(v.i), to);
  }
  return r;
}

Value load(const Tensor& t, int64_t k) {
  Value v;
  const std::byte* p = t.data.data() + size_t(k) * t.element_bytes();
  switch (t.dtype) {
    case ScalarType::Bool: { uint8_t x; std::memcpy(&x, p, 1); v.i = x != 0; break; }
    case ScalarType::UInt8: { uint8_t x; std::memcpy(&x, p, 1); v.i = x; break; }
    case ScalarType::UInt16: { uint16_t x; std::memcpy(&x, p, 2); v.i = x; break; }
    case ScalarType::UInt32: { uint32_t x; std::memcpy(&x, p, 4); v.i = x; break; }
    case ScalarType::UInt64: { uint64_t x; std::memcpy(&x, p, 8); v.i = int64_t(x); break; }
    case ScalarType::Int8: { int8_t x; std::memcpy(&x, p, 1); v.i = x; break; }
    case ScalarType::Int16: { int16_t x; std::memcpy(&x, p, 2); v.i = x; break; }
    case ScalarType::Int32: { int32_t x; std::memcpy(&x, p, 4); v.i = x; break; }
    case ScalarType::Int64: { int64_t x; std::memcpy(&x, p, 8); v.i = x; break; }
    case ScalarType::Float16: { uint16_t x; std::memcpy(&x, p, 2); v.f = half_to_float(x); break; }
    case ScalarType::Float32: { float x; std::memcpy(&x, p, 4); v.f = x; break; }
    case ScalarType::Float64: { double x; std::memcpy(&x, p, 8); v.f = x; break; }
  }
  return v;
}

void store(Tensor& t, int64_t k, Value v) {
  std::byte* p = t.data.data() + size_t(k) * t.element_bytes();
  switch (t.dtype) {
    case ScalarType::Bool: case ScalarType::UInt8: case ScalarType::Int8: { uint8_t x = uint8_t(v.i); std::memcpy(p, &x, 1); break; }
    case ScalarType::UInt16: case ScalarType::Int16: { uint16_t x = uint16_t(v.i); std::memcpy(p, &x, 2); break; }
    case ScalarType::UInt32: case ScalarType::Int32: { uint32_t x = uint32_t(v.i); std::memcpy(p, &x, 4); break; }
    case ScalarType::UInt64: case ScalarType::Int64: { std::memcpy(p, &v.i, 8); break; }
    case ScalarType::Float16: { uint16_t x = double_to_half(v.f); std::memcpy(p, &x, 2); break; }
    case ScalarType::Float32: { float x = float(v.f); std::memcpy(p, &x, 4); break; }
    case ScalarType::Float64: { std::memcpy(p, &v.f, 8); break; }
  }
}

Value identity(ast::ReduceOp op, ScalarType t) {
  ast::ScalarConstant c = ast::reduce_identity(op, t);
  return Value{c.f, c.i};
}

bool less_than(Value a, Value b, ScalarType t) {
  if (scalar_type_is_float(t)) return a.f < b.f;
  if (t == ScalarType::UInt64) return uint64_t(a.i) < uint64_t(b.i);
  return a.i < b.i;
}

struct RunError {
  std::string message;
};

class Runner {
 public:
  Runner(const SemaDef& def, const DefShapes& shapes) : def_(def), shapes_(shapes) {}

  // Runs in place on `buffers` (kernel_buffers' layout); they are handed back either way.
  Status run(std::vector<Tensor>& buffers) {
    if (!def_.ok) return Error{ErrorKind::Source, "'" + def_.name + "' has errors; fix them before running it"};
    buffers_ = std::move(buffers);
    for (const TensorShape& shape : shapes_.tensors) strides_.push_back(shape.strides());
    Status result = success();
    try {
      for (size_t s = 0; s < def_.stmts.size(); ++s) run_stmt(int(s));
    } catch (RunError& e) {
      result = Error{ErrorKind::RuntimeFault, e.message};
    }
    buffers = std::move(buffers_);
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    std::string at;
    const SemaStmt& st = def_.stmts[size_t(stmt_)];
    for (size_t i = 0; i < st.indices.size(); ++i)
      at += (i ? ", " : "") + st.indices[i].name + "=" + std::to_string(idx_[i]);
    throw RunError{"statement " + std::to_string(stmt_ + 1) + " of '" + def_.name + "': " + what +
                   (at.empty() ? "" : " (at " + at + ")")};
  }

  int64_t offset(int t, std::span<const int64_t> coords, const Expr* at) {
    const TensorShape& sh = shapes_.tensors[size_t(t)];
    int64_t off = 0;
    for (size_t d = 0; d < coords.size(); ++d) {
      int64_t c = coords[d] - sh.min[d];
      if (c < 0 || c >= sh.extent[d])
        fail("subscript " + std::to_string(d) + " of '" + def_.tensors[size_t(t)].name + "' is " +
             std::to_string(coords[d]) + ", outside [" + std::to_string(sh.min[d]) + ", " +
             std::to_string(sh.min[d] + sh.extent[d] - 1) + "]" + (at ? "" : " on the left-hand side"));
      off += c * strides_[size_t(t)][d];
    }
    return off;
  }

  Value eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::IntLiteral: return Value{0, e.int_value};
      case ExprKind::FloatLiteral: return Value{round_to(e.float_value, ScalarType::Float32), 0};
      case ExprKind::Name:
        if (e.ref == NameRef::Index) return Value{0, idx_[size_t(e.ref_id)]};
        if (e.ref == NameRef::SizeParam) return Value{0, wrap_to(uint64_t(shapes_.sizes.at(def_.size_params[size_t(e.ref_id)])), ScalarType::Int32)};
        return read(e);
      case ExprKind::Access:
        if (e.ref == NameRef::Builtin) return call(e);
        return read(e);
      case ExprKind::Unary: {
        Value a = eval(*e.args[0]);
        if (e.op == TokenKind::Bang) return Value{0, !a.i};
        if (scalar_type_is_float(e.type)) return Value{-a.f, 0};
        return Value{0, wrap_to(0 - uint64_t(a.i), e.type)};
      }
      case ExprKind::Binary: return binary(e);
      case ExprKind::Ternary: {
        Value c = eval(*e.args[0]);
        const Expr& branch = c.i ? *e.args[1] : *e.args[2];  // only the chosen branch runs
        return convert(eval(branch), branch.type, e.type);
      }
      case ExprKind::Cast: return convert(eval(*e.args[0]), e.args[0]->type, e.cast_type);
      case ExprKind::MinMax: {
        Value a = convert(eval(*e.args[0]), e.args[0]->type, e.type);
        Value b = convert(eval(*e.args[1]), e.args[1]->type, e.type);
        bool take_a = e.op == TokenKind::KwMin ? !less_than(b, a, e.type) : !less_than(a, b, e.type);
        return take_a ? a : b;
      }
    }
    return {};
  }

  // Every subscript is evaluated before any is checked, so a fault inside a later one is
  // the one reported. The coordinates live on the stack: a read is the interpreter's
  // innermost step, and a heap vector for each took a third of its time (matmul 256^3
  // checked in 1.07 s with one, 0.68 s without).
  Value read(const Expr& e) {
    constexpr size_t kOnStack = 8;
    std::array<int64_t, kOnStack> small;
    std::vector<int64_t> large(e.args.size() > kOnStack ? e.args.size() : 0);
    std::span<int64_t> coords = large.empty() ? std::span<int64_t>(small.data(), e.args.size()) : std::span<int64_t>(large);
    for (size_t d = 0; d < e.args.size(); ++d) {
      const Expr& a = *e.args[d];
      Value v = eval(a);
      coords[d] = a.type == ScalarType::UInt64 && v.i < 0 ? std::numeric_limits<int64_t>::max() : v.i;
    }
    return load(buffers_[size_t(e.ref_id)], offset(e.ref_id, coords, &e));
  }

  Value call(const Expr& e) {
    const Builtin& b = builtins()[size_t(e.ref_id)];
    double x[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < e.args.size(); ++i) {
      Value v = eval(*e.args[i]);
      ScalarType t = e.args[i]->type;
      x[i] = scalar_type_is_float(t) ? v.f : int_to_double(v.i, t);
    }
    // nextafter steps to the neighbour in the result's own precision, not in double's.
    if (b.name == "nextafter" && e.type == ScalarType::Float32)
      return Value{double(std::nextafter(float(x[0]), float(x[1]))), 0};
    double r = b.arity == 1   ? b.fn1(x[0])
               : b.arity == 2 ? b.fn2(x[0], x[1])
               : b.arity == 3 ? b.fn3(x[0], x[1], x[2])
                              : b.fn4(x[0], x[1], x[2], x[3]);
    return Value{round_to(r, e.type), 0};
  }

  Value binary(const Expr& e) {
    const Expr& l = *e.args[0];
    const Expr& r = *e.args[1];
    if (e.op == TokenKind::AndAnd) return Value{0, eval(l).i && eval(r).i};
    if (e.op == TokenKind::OrOr) return Value{0, eval(l).i || eval(r).i};
    // Comparisons promote their operands; arithmetic is done in the result type.
    ScalarType t = e.type;
    bool compare = t == ScalarType::Bool;
    if (compare) t = l.type == ScalarType::Bool ? ScalarType::Bool : scalar_type_promote(l.type, r.type);
    Value a = convert(eval(l), l.type, t), b = convert(eval(r), r.type, t);
    bool fl = scalar_type_is_float(t);
    switch (e.op) {
      case TokenKind::Less: return Value{0, less_than(a, b, t)};
      case TokenKind::Greater: return Value{0, less_than(b, a, t)};
      case TokenKind::LessEq: return Value{0, fl ? a.f <= b.f : !less_than(b, a, t)};
      case TokenKind::GreaterEq: return Value{0, fl ? a.f >= b.f : !less_than(a, b, t)};
      case TokenKind::EqEq: return Value{0, fl ? a.f == b.f : a.i == b.i};
      case TokenKind::NotEq: return Value{0, fl ? a.f != b.f : a.i != b.i};
      default: break;
    }
    if (fl) {
      double v = 0;
      switch (e.op) {
        case TokenKind::Plus: v = a.f + b.f; break;
        case TokenKind::Minus: v = a.f - b.f; break;
        case TokenKind::Star: v = a.f * b.f; break;
        case TokenKind::Slash: v = a.f / b.f; break;
        default: break;
      }
      return Value{round_to(v, t), 0};
    }
    uint64_t x = uint64_t(a.i), y = uint64_t(b.i);
    switch (e.op) {
      case TokenKind::Plus: return Value{0, wrap_to(x + y, t)};
      case TokenKind::Minus: return Value{0, wrap_to(x - y, t)};
      case TokenKind::Star: return Value{0, wrap_to(x * y, t)};
      case TokenKind::Slash:
      case TokenKind::Percent: {
        if (y == 0) fail("integer division by zero in '" + std::string(e.op == TokenKind::Slash ? "/" : "%") + "'");
        bool div = e.op == TokenKind::Slash;
        if (!scalar_type_is_signed(t) || t == ScalarType::UInt64) return Value{0, wrap_to(div ? x / y : x % y, t)};
        if (b.i == -1) return Value{0, wrap_to(div ? 0 - x : 0, t)};  // avoids INT64_MIN / -1
        return Value{0, wrap_to(uint64_t(div ? a.i / b.i : a.i % b.i), t)};
      }
      default: return {};
    }
  }

  // Combines an accumulator with a new value; floats accumulate in double.
  Value reduce(ast::ReduceOp op, Value acc, Value v, ScalarType t) {
    if (scalar_type_is_float(t)) {
      switch (op) {
        case ast::ReduceOp::Sum: return Value{acc.f + v.f, 0};
        case ast::ReduceOp::Product: return Value{acc.f * v.f, 0};
        case ast::ReduceOp::Min: return (v.f < acc.f || std::isnan(v.f)) ? v : acc;
        case ast::ReduceOp::Max: return (v.f > acc.f || std::isnan(v.f)) ? v : acc;
        default: return v;
      }
    }
    switch (op) {
      case ast::ReduceOp::Sum: return Value{0, wrap_to(uint64_t(acc.i) + uint64_t(v.i), t)};
      case ast::ReduceOp::Product: return Value{0, wrap_to(uint64_t(acc.i) * uint64_t(v.i), t)};
      case ast::ReduceOp::Min: return less_than(v, acc, t) ? v : acc;
      case ast::ReduceOp::Max: return less_than(acc, v, t) ? v : acc;
      default: return v;
    }
  }

  void run_stmt(int s) {
    stmt_ = s;
    const SemaStmt& st = def_.stmts[size_t(s)];
    const ast::Stmt& a = *st.ast;
    const std::vector<IndexRange>& ranges = shapes_.stmts[size_t(s)];
    int t = st.lhs_tensor;
    ScalarType tt = def_.tensors[size_t(t)].type;
    Tensor& out = buffers_[size_t(t)];
    size_t n = st.indices.size(), lhs = size_t(st.lhs_rank);
    idx_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) idx_[i] = ranges[i].lo;
    // op=! without a reduction index behaves as '=' (LANGUAGE.md §3).
    bool reduces = st.reduces();
    std::vector<int64_t> coords(lhs);
    // Loop over the left-hand points (outer) and the reduction indices (inner).
    while (true) {
      for (size_t i = 0; i < lhs; ++i) coords[i] = idx_[i];
      int64_t off = offset(t, coords, nullptr);
      Value acc = a.init ? identity(a.reduce, tt) : load(out, off);
      do {
        Value v = convert(eval(*a.rhs), a.rhs->type, tt);
        acc = reduces ? reduce(a.reduce, acc, v, tt) : v;
      } while (advance(lhs, n, ranges));
      if (scalar_type_is_float(tt)) acc.f = round_to(acc.f, tt);
      store(out, off, acc);
      if (!advance(0, lhs, ranges)) break;
    }
  }

  // Odometer over idx_[from, to); resets those digits and returns false when done.
  bool advance(size_t from, size_t to, const std::vector<IndexRange>& ranges) {
    for (size_t i = to; i-- > from;) {
      if (idx_[i] < ranges[i].hi) {
        ++idx_[i];
        return true;
      }
      idx_[i] = ranges[i].lo;
    }
    return false;
  }

  const SemaDef& def_;
  const DefShapes& shapes_;
  std::vector<Tensor> buffers_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> idx_;
  int stmt_ = 0;
};

}  // namespace

Status interpret_buffers(const SemaDef& def, const DefShapes& shapes, std::vector<Tensor>& buffers) {
  return Runner(def, shapes).run(buffers);
}

Expected<TensorMap> interpret(const SemaDef& def, const DefShapes& shapes, const TensorMap& supplied) {
  if (!def.ok) return Error{ErrorKind::Source, "'" + def.name + "' has errors; fix them before running it"};
  auto buffers = kernel_buffers(def, shapes, supplied);
  if (!buffers) return buffers.failure();
  if (Status s = interpret_buffers(def, shapes, *buffers); !s) return s.failure();
  return kernel_outputs(def, std::move(*buffers));
}

}  // namespace tcs
