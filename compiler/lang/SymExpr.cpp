#include "lang/SymExpr.h"

#include <algorithm>

namespace tcs {
namespace {

bool add_ovf(int64_t a, int64_t b, int64_t& r) { return __builtin_add_overflow(a, b, &r); }
bool mul_ovf(int64_t a, int64_t b, int64_t& r) { return __builtin_mul_overflow(a, b, &r); }

int64_t floor_div(int64_t a, int64_t d) {
  int64_t q = a / d;
  return (a % d != 0 && ((a < 0) != (d < 0))) ? q - 1 : q;
}

}  // namespace

SymExpr SymExpr::from_atom(std::shared_ptr<const SymAtom> atom) {
  SymExpr e;
  e.terms_.push_back({1, std::move(atom)});
  return e;
}

SymExpr SymExpr::param(const std::string& name) {
  auto a = std::make_shared<SymAtom>();
  a->kind = SymAtom::Param;
  a->name = name;
  a->key = name;
  return from_atom(a);
}

SymExpr operator+(const SymExpr& a, const SymExpr& b) {
  SymExpr r;
  r.overflow_ = a.overflow_ || b.overflow_ || add_ovf(a.c_, b.c_, r.c_);
  size_t i = 0, j = 0;
  while (i < a.terms_.size() || j < b.terms_.size()) {
    if (j == b.terms_.size() || (i < a.terms_.size() && a.terms_[i].atom->key < b.terms_[j].atom->key)) {
      r.terms_.push_back(a.terms_[i++]);
    } else if (i == a.terms_.size() || b.terms_[j].atom->key < a.terms_[i].atom->key) {
      r.terms_.push_back(b.terms_[j++]);
    } else {
      int64_t c;
      if (add_ovf(a.terms_[i].coef, b.terms_[j].coef, c)) r.overflow_ = true;
      if (c != 0) r.terms_.push_back({c, a.terms_[i].atom});
      ++i, ++j;
    }
  }
  return r;
}

SymExpr SymExpr::scaled(int64_t k) const {
  if (k == 0) return SymExpr(0);
  SymExpr r = *this;
  if (mul_ovf(c_, k, r.c_)) r.overflow_ = true;
  for (Term& t : r.terms_)
    if (mul_ovf(t.coef, k, t.coef)) r.overflow_ = true;
  return r;
}

SymExpr operator-(const SymExpr& a, const SymExpr& b) { return a + b.scaled(-1); }

SymExpr operator*(const SymExpr& a, const SymExpr& b) {
  if (auto k = a.constant()) return b.scaled(*k);
  if (auto k = b.constant()) return a.scaled(*k);
  auto atom = std::make_shared<SymAtom>();
  atom->kind = SymAtom::Product;
  const SymExpr& x = a.str() < b.str() ? a : b;
  const SymExpr& y = &x == &a ? b : a;
  atom->operands = {x, y};
  atom->key = "(" + x.str() + ")*(" + y.str() + ")";
  SymExpr r = SymExpr::from_atom(atom);
  r.overflow_ = a.overflow_ || b.overflow_;
  return r;
}

bool operator==(const SymExpr& a, const SymExpr& b) {
  if (a.c_ != b.c_ || a.terms_.size() != b.terms_.size() || a.overflow_ != b.overflow_) return false;
  for (size_t i = 0; i < a.terms_.size(); ++i)
    if (a.terms_[i].coef != b.terms_[i].coef || a.terms_[i].atom->key != b.terms_[i].atom->key)
      return false;
  return true;
}

std::optional<int64_t> SymExpr::constant() const {
  if (terms_.empty() && !overflow_) return c_;
  return std::nullopt;
}

// min or max: picked outright when the operands differ by a constant, else an atom with
// its operands in canonical order so min(a, b) and min(b, a) are the same.
SymExpr SymExpr::extremum(bool is_min, const SymExpr& a, const SymExpr& b) {
  if (auto d = (a - b).constant()) return (is_min ? *d <= 0 : *d >= 0) ? a : b;
  auto atom = std::make_shared<SymAtom>();
  atom->kind = is_min ? SymAtom::Min : SymAtom::Max;
  bool swap = b.str() < a.str();
  atom->operands = swap ? std::vector<SymExpr>{b, a} : std::vector<SymExpr>{a, b};
  atom->key = std::string(is_min ? "min(" : "max(") + atom->operands[0].str() + ", " + atom->operands[1].str() + ")";
  SymExpr r = from_atom(atom);
  r.overflow_ = a.overflow_ || b.overflow_;
  return r;
}

SymExpr SymExpr::min(const SymExpr& a, const SymExpr& b) { return extremum(true, a, b); }
SymExpr SymExpr::max(const SymExpr& a, const SymExpr& b) { return extremum(false, a, b); }

SymExpr SymExpr::floordiv(const SymExpr& a, int64_t d) {
  if (d == 1) return a;
  if (auto c = a.constant()) return SymExpr(floor_div(*c, d));
  // Exact when every coefficient divides: (2N + 4) / 2 = N + 2. A constant part that does
  // not divide can still be split off when the rest is a multiple: (2N + 3) / 2 = N + 1.
  bool terms_divide = std::all_of(a.terms_.begin(), a.terms_.end(),
                                  [d](const Term& t) { return t.coef % d == 0; });
  if (terms_divide) {
    SymExpr r;
    r.overflow_ = a.overflow_;
    r.c_ = floor_div(a.c_, d);
    for (const Term& t : a.terms_) r.terms_.push_back({t.coef / d, t.atom});
    return r;
  }
  auto atom = std::make_shared<SymAtom>();
  atom->kind = SymAtom::FloorDiv;
  atom->operands = {a};
  atom->divisor = d;
  bool compound = a.terms_.size() > 1 || (a.terms_.size() == 1 && (a.c_ != 0 || a.terms_[0].coef != 1));
  atom->key = "floor(" + (compound ? "(" + a.str() + ")" : a.str()) + " / " + std::to_string(d) + ")";
  SymExpr r = from_atom(atom);
  r.overflow_ = a.overflow_;
  return r;
}

SymExpr SymExpr::ceildiv(const SymExpr& a, int64_t d) { return floordiv(a + SymExpr(d - 1), d); }

std::optional<int64_t> SymExpr::eval(const SizeMap& sizes) const {
  if (overflow_) return std::nullopt;
  int64_t v = c_;
  for (const Term& t : terms_) {
    const SymAtom& a = *t.atom;
    int64_t x = 0;
    switch (a.kind) {
      case SymAtom::Param: {
        auto it = sizes.find(a.name);
        if (it == sizes.end()) return std::nullopt;
        x = it->second;
        break;
      }
      case SymAtom::Min:
      case SymAtom::Max: {
        auto l = a.operands[0].eval(sizes), r = a.operands[1].eval(sizes);
        if (!l || !r) return std::nullopt;
        x = a.kind == SymAtom::Min ? std::min(*l, *r) : std::max(*l, *r);
        break;
      }
      case SymAtom::FloorDiv: {
        auto l = a.operands[0].eval(sizes);
        if (!l) return std::nullopt;
        x = floor_div(*l, a.divisor);
        break;
      }
      case SymAtom::Product: {
        auto l = a.operands[0].eval(sizes), r = a.operands[1].eval(sizes);
        if (!l || !r || mul_ovf(*l, *r, x)) return std::nullopt;
        break;
      }
    }
    int64_t term;
    if (mul_ovf(t.coef, x, term) || add_ovf(v, term, v)) return std::nullopt;
  }
  return v;
}

std::string SymExpr::str() const {
  if (overflow_) return "<overflow>";
  // Positive terms first, so "W - KW" rather than "-KW + W".
  std::vector<const Term*> order;
  for (const Term& t : terms_)
    if (t.coef > 0) order.push_back(&t);
  for (const Term& t : terms_)
    if (t.coef < 0) order.push_back(&t);
  std::string s;
  for (const Term* t : order) {
    int64_t c = t->coef;
    if (s.empty()) {
      if (c == -1) s += "-";
      else if (c != 1) s += std::to_string(c) + "*";
    } else {
      s += c < 0 ? " - " : " + ";
      int64_t m = c < 0 ? -c : c;
      if (m != 1) s += std::to_string(m) + "*";
    }
    s += t->atom->key;
  }
  if (s.empty()) return std::to_string(c_);
  if (c_ > 0) s += " + " + std::to_string(c_);
  if (c_ < 0) s += " - " + std::to_string(-c_);
  return s;
}

void SymExpr::collect_params(std::vector<std::string>& out) const {
  for (const Term& t : terms_) {
    if (t.atom->kind == SymAtom::Param) {
      if (std::find(out.begin(), out.end(), t.atom->name) == out.end()) out.push_back(t.atom->name);
    } else {
      for (const SymExpr& o : t.atom->operands) o.collect_params(out);
    }
  }
}

// Replaces term `term` (coef * atom) by coef * replacement.
SymExpr SymExpr::substitute(size_t term, const SymExpr& replacement) const {
  SymExpr rest = *this;
  int64_t coef = rest.terms_[term].coef;
  rest.terms_.erase(rest.terms_.begin() + long(term));
  return rest + replacement.scaled(coef);
}

bool SymExpr::provably_nonnegative() const { return prove(0); }

// Parameters are sizes, so >= 1. Opaque atoms are removed one at a time by replacing them
// with a bound in the direction that keeps the claim sufficient: -min(a,b) >= -a, so a
// negative min may be replaced by either operand; a positive min must hold for both.
bool SymExpr::prove(int depth) const {
  if (overflow_ || depth > 8) return false;
  for (size_t i = 0; i < terms_.size(); ++i) {
    const SymAtom& a = *terms_[i].atom;
    int64_t coef = terms_[i].coef;
    switch (a.kind) {
      case SymAtom::Param:
      case SymAtom::Product:
        continue;
      case SymAtom::Min:
      case SymAtom::Max: {
        bool either = (a.kind == SymAtom::Min) == (coef < 0);
        bool p0 = substitute(i, a.operands[0]).prove(depth + 1);
        if (either && p0) return true;
        if (!either && !p0) return false;
        return substitute(i, a.operands[1]).prove(depth + 1);
      }
      case SymAtom::FloorDiv: {
        // d*floor(x/d) lies in [x - d + 1, x]. Prove d*e >= -(d-1), enough for an integer e.
        int64_t d = a.divisor;
        SymExpr rest = *this;
        rest.terms_.erase(rest.terms_.begin() + long(i));
        SymExpr x = a.operands[0];
        SymExpr bound = coef > 0 ? x - SymExpr(d - 1) : x;
        SymExpr scaled_claim = rest.scaled(d) + bound.scaled(coef) + SymExpr(d - 1);
        return scaled_claim.prove(depth + 1);
      }
    }
  }
  // Affine in parameters >= 1: non-negative everywhere iff every coefficient is and the
  // value at all parameters = 1 is.
  int64_t at_one = c_;
  for (const Term& t : terms_) {
    if (t.coef < 0) return false;
    if (add_ovf(at_one, t.coef, at_one)) return false;
  }
  return at_one >= 0;
}

}  // namespace tcs
