#pragma once
// What the range-inference tests share: a checked def that must be free of errors, its
// indices, tensors and warnings, and the bounds and shapes Sema and shapes_evaluate give.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lang/Frontend.h"
#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "lang/SymExpr.h"

namespace tcs::testing_support {

inline ::testing::AssertionResult has_substr(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

inline SymExpr P(const std::string& name) { return SymExpr::param(name); }

inline std::string all_diagnostics(const CheckedFile& f) { return diagnostics_format(f.file, f.diagnostics); }

inline std::vector<const Diagnostic*> with_severity(const CheckedFile& f, Severity s) {
  std::vector<const Diagnostic*> out;
  for (const Diagnostic& d : f.diagnostics)
    if (d.severity == s) out.push_back(&d);
  return out;
}

inline std::string text_of(const CheckedFile& f, const Diagnostic& d) { return std::string(f.file.slice(d.range)); }

// A checked file with exactly one def, which must be free of errors.
struct Kernel {
  std::unique_ptr<CheckedFile> file;
  const SemaDef* def = nullptr;

  const SemaStmt& stmt(size_t s) const { return def->stmts.at(s); }
  const SemaIndex& index(size_t s, const std::string& name) const {
    for (const SemaIndex& ix : stmt(s).indices)
      if (ix.name == name) return ix;
    ADD_FAILURE() << "statement " << s << " has no index '" << name << "'";
    static SemaIndex none;
    return none;
  }
  const SemaTensor& tensor(const std::string& name) const {
    int t = def->find_tensor(name);
    if (t < 0) {
      ADD_FAILURE() << "no tensor '" << name << "'";
      static SemaTensor none;
      return none;
    }
    return def->tensors[size_t(t)];
  }
  std::vector<const Diagnostic*> warnings() const { return with_severity(*file, Severity::Warning); }
};

inline Kernel check_ok(const std::string& src) {
  Kernel k;
  k.file = check_source("test.tc", src);
  EXPECT_FALSE(k.file->has_errors()) << all_diagnostics(*k.file);
  auto d = select_entry(*k.file, "");
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error());
  if (d.ok()) k.def = *d;
  if (k.def) {
    EXPECT_TRUE(k.def->ok);
  }
  return k;
}

// "[lo, hi]" of an index or of one dimension of a tensor, as SymExpr::str() spells them.
inline std::string bounds(const SemaIndex& ix) { return "[" + ix.lo.str() + ", " + ix.hi.str() + "]"; }
inline std::string bounds(const SemaTensor& t, int d) {
  return "[" + t.lo.at(size_t(d)).str() + ", " + t.hi.at(size_t(d)).str() + "]";
}

inline const IndexRange* find_range(const DefShapes& sh, size_t stmt, const std::string& name) {
  for (const IndexRange& r : sh.stmts.at(stmt))
    if (r.name == name) return &r;
  return nullptr;
}

// lo and hi (inclusive) of an index of statement `stmt` for evaluated shapes.
inline std::pair<int64_t, int64_t> range_of(const DefShapes& sh, size_t stmt, const std::string& name) {
  const IndexRange* r = find_range(sh, stmt, name);
  EXPECT_NE(r, nullptr) << "statement " << stmt << " has no index '" << name << "'";
  return r ? std::pair{r->lo, r->hi} : std::pair<int64_t, int64_t>{0, -1};
}

inline const TensorShape& shape_of(const SemaDef& def, const DefShapes& sh, const std::string& name) {
  int t = def.find_tensor(name);
  EXPECT_GE(t, 0) << name;
  return sh.tensors.at(size_t(t < 0 ? 0 : t));
}

using Shape = std::vector<int64_t>;

}  // namespace tcs::testing_support
