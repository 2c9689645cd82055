#include "lang/SubscriptValues.h"

#include <algorithm>
#include <cstdint>

namespace tcs {

namespace {

using Range = std::pair<int64_t, int64_t>;  // inclusive

class Values {
 public:
  Values(const std::vector<IndexRange>& indices, const SizeMap& sizes) : indices_(indices), sizes_(sizes) {}

  std::optional<Range> of(const ast::Expr& e) {
    using ast::ExprKind;
    if (!scalar_type_is_integer(e.type) || !scalar_type_is_signed(e.type)) return {};
    std::optional<Range> r;
    switch (e.kind) {
      case ExprKind::IntLiteral: r = Range{e.int_value, e.int_value}; break;
      case ExprKind::Name:
        if (e.ref == ast::NameRef::Index && e.ref_id >= 0 && size_t(e.ref_id) < indices_.size())
          r = Range{indices_[size_t(e.ref_id)].lo, indices_[size_t(e.ref_id)].hi};
        else if (e.ref == ast::NameRef::SizeParam)
          if (auto it = sizes_.find(e.name); it != sizes_.end()) r = Range{it->second, it->second};
        break;
      case ExprKind::Unary:
        if (e.op == TokenKind::Minus)
          if (auto a = of(*e.args[0]); a && a->first != INT64_MIN) r = Range{-a->second, -a->first};
        break;
      case ExprKind::Binary: r = binary(e); break;
      case ExprKind::Ternary: {
        auto a = of(*e.args[1]), b = of(*e.args[2]);
        if (a && b) r = Range{std::min(a->first, b->first), std::max(a->second, b->second)};
        break;
      }
      case ExprKind::Cast: r = of(*e.args[0]); break;
      case ExprKind::MinMax: {
        auto a = of(*e.args[0]), b = of(*e.args[1]);
        if (!a || !b) break;
        if (e.op == TokenKind::KwMin) r = Range{std::min(a->first, b->first), std::min(a->second, b->second)};
        else r = Range{std::max(a->first, b->first), std::max(a->second, b->second)};
        break;
      }
      default: break;
    }
    return r && fits(*r, e.type) ? r : std::nullopt;
  }

 private:
  // Whether every value of r is a value of type t (no wrap-around on the way).
  static bool fits(const Range& r, ScalarType t) {
    int bits = scalar_type_bits(t);
    if (bits >= 64) return true;  // the arithmetic below refuses what overflows 64 bits
    int64_t hi = (int64_t(1) << (bits - 1)) - 1;
    return r.first >= -hi - 1 && r.second <= hi;
  }

  std::optional<Range> binary(const ast::Expr& e) {
    auto a = of(*e.args[0]), b = of(*e.args[1]);
    if (!a || !b) return {};
    auto [al, ah] = *a;
    auto [bl, bh] = *b;
    int64_t x = 0, y = 0;
    switch (e.op) {
      case TokenKind::Plus:
        if (__builtin_add_overflow(al, bl, &x) || __builtin_add_overflow(ah, bh, &y)) return {};
        return Range{x, y};
      case TokenKind::Minus:
        if (__builtin_sub_overflow(al, bh, &x) || __builtin_sub_overflow(ah, bl, &y)) return {};
        return Range{x, y};
      case TokenKind::Star: {
        int64_t p[4];
        if (__builtin_mul_overflow(al, bl, &p[0]) || __builtin_mul_overflow(al, bh, &p[1]) ||
            __builtin_mul_overflow(ah, bl, &p[2]) || __builtin_mul_overflow(ah, bh, &p[3]))
          return {};
        return Range{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
      }
      case TokenKind::Slash:  // truncating division grows with the dividend
        if (bl != bh || bl <= 0) return {};
        return Range{al / bl, ah / bl};
      case TokenKind::Percent: {  // the remainder takes the dividend's sign
        if (bl != bh || bl <= 0) return {};
        if (al >= 0 && ah - al < bl && al % bl <= ah % bl) return Range{al % bl, ah % bl};
        return Range{al >= 0 ? 0 : std::max(al, -(bl - 1)), ah <= 0 ? 0 : std::min(ah, bl - 1)};
      }
      default: return {};
    }
  }

  const std::vector<IndexRange>& indices_;
  const SizeMap& sizes_;
};

}  // namespace

std::optional<std::pair<int64_t, int64_t>> subscript_values(const ast::Expr& e, const std::vector<IndexRange>& indices,
                                                            const SizeMap& sizes) {
  return Values(indices, sizes).of(e);
}

}  // namespace tcs
