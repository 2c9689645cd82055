#pragma once
// Integer expressions over size parameters: the bounds that range inference solves for
// (`H - KH`, `floor((H - 2) / 2)`, `min(N, M) - 1`). Kept in a canonical affine form
// (constant + sum of coefficient * atom) so equal bounds compare equal and differences
// of bounds simplify. Non-affine parts (min, max, floor division, products of parameters)
// are opaque atoms.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tcs {

using SizeMap = std::map<std::string, int64_t, std::less<>>;

struct SymAtom;

class SymExpr {
 public:
  SymExpr(int64_t c = 0) : c_(c) {}
  static SymExpr param(const std::string& name);
  static SymExpr min(const SymExpr& a, const SymExpr& b);
  static SymExpr max(const SymExpr& a, const SymExpr& b);
  static SymExpr floordiv(const SymExpr& a, int64_t d);  // d > 0; rounds toward -infinity
  static SymExpr ceildiv(const SymExpr& a, int64_t d);   // d > 0

  friend SymExpr operator+(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator-(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator*(const SymExpr& a, const SymExpr& b);
  SymExpr operator-() const { return SymExpr(0) - *this; }
  friend bool operator==(const SymExpr& a, const SymExpr& b);

  std::optional<int64_t> constant() const;
  bool overflowed() const { return overflow_; }
  // The value for the given sizes; nullopt when a parameter is missing or on overflow.
  std::optional<int64_t> eval(const SizeMap& sizes) const;
  std::string str() const;
  void collect_params(std::vector<std::string>& out) const;

  // True when the expression is >= 0 for every assignment of the parameters >= 1 that this
  // simple prover can see; false means "not proven", not "false".
  bool provably_nonnegative() const;

  struct Term {
    int64_t coef;
    std::shared_ptr<const SymAtom> atom;
  };
  // The canonical form, for printing it in another language (C, LLVM IR): the value is
  // constant_term() + the sum of coef * atom over terms().
  int64_t constant_term() const { return c_; }
  const std::vector<Term>& terms() const { return terms_; }

 private:
  friend struct SymAtom;
  static SymExpr from_atom(std::shared_ptr<const SymAtom> atom);
  static SymExpr extremum(bool is_min, const SymExpr& a, const SymExpr& b);
  SymExpr scaled(int64_t k) const;
  SymExpr substitute(size_t term, const SymExpr& replacement_per_unit) const;
  bool prove(int depth) const;

  int64_t c_ = 0;
  std::vector<Term> terms_;  // sorted by atom key, no zero coefficients
  bool overflow_ = false;
};

struct SymAtom {
  enum Kind { Param, Min, Max, FloorDiv, Product } kind;
  std::string name;               // Param
  std::vector<SymExpr> operands;  // Min, Max, Product: two; FloorDiv: one
  int64_t divisor = 1;            // FloorDiv
  std::string key;                // canonical text, used for ordering and equality
};

}  // namespace tcs
