#include "lang/Shapes.h"

#include "lang/RangeInference.h"

namespace tcs {

int64_t TensorShape::numel() const {
  int64_t n = 1;
  for (int64_t e : extent) n *= e;
  return n;
}

std::vector<int64_t> TensorShape::strides() const {
  std::vector<int64_t> s(extent.size(), 1);
  for (size_t d = extent.size(); d-- > 1;) s[d - 1] = s[d] * extent[d];
  return s;
}

std::string sizes_describe(const SemaDef& def, const SizeMap& sizes) {
  std::string s;
  for (const std::string& p : def.size_params)
    if (auto it = sizes.find(p); it != sizes.end()) s += (s.empty() ? "" : " ") + p + "=" + std::to_string(it->second);
  return s;
}

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Largest size accepted: keeps every index computation comfortably inside int64.

}  // namespace

Expected<SizeMap> sizes_bind(const SemaDef& def, const SizeMap& explicit_sizes,
                             const std::map<std::string, TensorSignature>& supplied) {
  SizeMap sizes;
  std::map<std::string, std::string> origin;  // where each size came from, for messages
  std::string all;
  for (const std::string& p : def.size_params) all += (all.empty() ? "" : ", ") + p;
  for (const auto& [name, v] : explicit_sizes) {
    if (def.find_size_param(name) < 0)
      return Error{ErrorKind::Sizes, "'" + name + "' is not a size parameter of '" + def.name + "'" +
                   (all.empty() ? " (it has none)" : "; its sizes are " + all)};
    if (v < 1 || v > kMaxSize)
      return Error{ErrorKind::Sizes, "size " + name + "=" + std::to_string(v) + " is out of range; sizes must be between 1 and " +
                   std::to_string(kMaxSize)};
    sizes[name] = v;
    origin[name] = "--size " + name + "=" + std::to_string(v);
  }
  for (const auto& [name, sig] : supplied) {
    int t = def.find_tensor(name);
    if (t < 0) return Error{ErrorKind::Sizes, "'" + def.name + "' has no tensor named '" + name + "'"};
    const SemaTensor& T = def.tensors[size_t(t)];
    if (T.role == TensorRole::Temporary)
      return Error{ErrorKind::Sizes, "'" + name + "' is a temporary of '" + def.name + "' and cannot be supplied"};
    if (sig.dtype != T.type)
      return Error{ErrorKind::Sizes, "tensor '" + name + "' must be " + std::string(scalar_type_name(T.type)) + ", but the supplied one is " +
                   std::string(scalar_type_name(sig.dtype))};
    const ast::TensorDecl* decl = def.declaration(t);
    if (!decl || !decl->has_shape) {
      if (T.role == TensorRole::Input && sig.shape.size() != 0)
        return Error{ErrorKind::Sizes, "tensor '" + name + "' is 0-d, but the supplied one has shape " + shape_text(sig.shape)};
      continue;  // an output without a declared shape binds nothing; checked after evaluation
    }
    if (sig.shape.size() != decl->dims.size())
      return Error{ErrorKind::Sizes, "tensor '" + name + "' has " + std::to_string(decl->dims.size()) + " dimensions, but the supplied one has shape " +
                   shape_text(sig.shape)};
    for (size_t d = 0; d < decl->dims.size(); ++d) {
      const ast::Dim& dim = decl->dims[d];
      int64_t got = sig.shape[d];
      if (dim.name.empty()) {
        if (got != dim.value)
          return Error{ErrorKind::Sizes, "dimension " + std::to_string(d) + " of '" + name + "' must be " + std::to_string(dim.value) +
                       ", but the supplied tensor has shape " + shape_text(sig.shape)};
        continue;
      }
      if (got < 1 || got > kMaxSize)
        return Error{ErrorKind::Sizes, "dimension " + std::to_string(d) + " of '" + name + "' is " + std::to_string(got) +
                     "; sizes must be between 1 and " + std::to_string(kMaxSize)};
      auto it = sizes.find(dim.name);
      if (it == sizes.end()) {
        sizes[dim.name] = got;
        origin[dim.name] = "the shape " + shape_text(sig.shape) + " of '" + name + "'";
      } else if (it->second != got) {
        return Error{ErrorKind::Sizes, "size " + dim.name + " is " + std::to_string(it->second) + " from " + origin[dim.name] +
                     ", but the shape " + shape_text(sig.shape) + " of '" + name + "' gives " + dim.name + "=" +
                     std::to_string(got)};
      }
    }
  }
  for (const std::string& p : def.size_params)
    if (!sizes.count(p))
      return Error{ErrorKind::Sizes, "size " + p + " of '" + def.name + "' is not bound; give it a value (a '# sizes:' line, the Sizes table, --size " + p +
                                           "=INT) or an input whose shape gives it"};
  return sizes;
}

Expected<DefShapes> shapes_evaluate(const SemaDef& def, const SizeMap& sizes) {
  if (!def.ok) return Error{ErrorKind::Source, "'" + def.name + "' has errors; fix them first"};
  DefShapes out;
  out.sizes = sizes;
  std::string with = sizes.empty() ? "" : " with " + sizes_describe(def, sizes);
  auto eval = [&](const SymExpr& e, const std::string& what) -> Expected<int64_t> {
    auto v = e.eval(sizes);
    if (!v) return Error{ErrorKind::Sizes, "cannot evaluate " + what + " ('" + e.str() + "')" + with + ": a size is missing or the value overflows"};
    return *v;
  };
  for (size_t s = 0; s < def.stmts.size(); ++s) {
    const SemaStmt& st = def.stmts[s];
    std::vector<IndexRange> ranges;
    for (const SemaIndex& ix : st.indices) {
      auto lo = eval(ix.lo, "the lower bound of index '" + ix.name + "'");
      if (!lo) return lo.failure();
      auto hi = eval(ix.hi, "the upper bound of index '" + ix.name + "'");
      if (!hi) return hi.failure();
      if (*hi < *lo)
        return Error{ErrorKind::Sizes, "index '" + ix.name + "' of statement " + std::to_string(s + 1) + " of '" + def.name +
                     "' has an empty range [" + std::to_string(*lo) + ", " + std::to_string(*hi) + "] (" + ix.lo.str() +
                     " to " + ix.hi.str() + ")" + with};
      ranges.push_back({ix.name, *lo, *hi});
    }
    out.stmts.push_back(std::move(ranges));
  }
  for (const SemaTensor& T : def.tensors) {
    TensorShape shape;
    for (int d = 0; d < T.rank(); ++d) {
      auto lo = eval(T.lo[size_t(d)], "the shape of '" + T.name + "'");
      if (!lo) return lo.failure();
      auto hi = eval(T.hi[size_t(d)], "the shape of '" + T.name + "'");
      if (!hi) return hi.failure();
      if (*hi < *lo)
        return Error{ErrorKind::Sizes, "'" + T.name + "' would have " + std::to_string(*hi - *lo + 1) + " elements in dimension " +
                     std::to_string(d) + with};
      shape.min.push_back(*lo);
      shape.extent.push_back(*hi - *lo + 1);
    }
    out.tensors.push_back(std::move(shape));
  }
  // Preconditions the front end could not prove must hold for these sizes.
  for (size_t s = 0; s < def.stmts.size(); ++s) {
    const SemaStmt& st = def.stmts[s];
    for (const AccessConstraint& c : st.constraints) {
      if (c.used_to_solve || !c.affine || c.guarded) continue;  // guarded reads: checked when they run
      auto [lo_e, hi_e] = constraint_bounds(c, st.indices);
      const SemaTensor& T = def.tensors[size_t(c.tensor)];
      auto lo = lo_e.eval(sizes), hi = hi_e.eval(sizes);
      auto L = T.lo[size_t(c.dim)].eval(sizes), H = T.hi[size_t(c.dim)].eval(sizes);
      if (!lo || !hi || !L || !H) return Error{ErrorKind::Sizes, "cannot evaluate the bounds of an access to '" + T.name + "'" + with};
      if (*lo < *L || *hi > *H)
        return Error{ErrorKind::Sizes, "statement " + std::to_string(s + 1) + " of '" + def.name + "' reads '" + T.name +
                     "' out of bounds" + with + ": dimension " + std::to_string(c.dim) + " is accessed over [" +
                     std::to_string(*lo) + ", " + std::to_string(*hi) + "] but spans [" + std::to_string(*L) + ", " +
                     std::to_string(*H) + "]"};
    }
  }
  return out;
}

std::vector<SizeCondition> size_conditions(const SemaDef& def) {
  std::vector<SizeCondition> out;
  for (const std::string& p : def.size_params) {
    out.push_back({SizeCondition::Kind::SizeRange, SymExpr::param(p) - SymExpr(1), "size " + p + " is at least 1"});
    out.push_back({SizeCondition::Kind::SizeRange, SymExpr(kMaxSize) - SymExpr::param(p),
                   "size " + p + " is at most " + std::to_string(kMaxSize)});
  }
  for (size_t s = 0; s < def.stmts.size(); ++s)
    for (const SemaIndex& ix : def.stmts[s].indices)
      out.push_back({SizeCondition::Kind::IndexRange, ix.hi - ix.lo, "index '" + ix.name + "' of statement " + std::to_string(s + 1) + " has a non-empty range"});
  for (const SemaTensor& T : def.tensors)
    for (int d = 0; d < T.rank(); ++d)
      out.push_back({SizeCondition::Kind::TensorExtent, T.hi[size_t(d)] - T.lo[size_t(d)], "'" + T.name + "' has elements in dimension " + std::to_string(d)});
  for (size_t s = 0; s < def.stmts.size(); ++s) {
    const SemaStmt& st = def.stmts[s];
    for (const AccessConstraint& c : st.constraints) {
      if (c.used_to_solve || !c.affine || c.guarded) continue;  // as shapes_evaluate
      auto [lo, hi] = constraint_bounds(c, st.indices);
      const SemaTensor& T = def.tensors[size_t(c.tensor)];
      std::string what = "statement " + std::to_string(s + 1) + " reads '" + T.name + "' inside dimension " + std::to_string(c.dim);
      out.push_back({SizeCondition::Kind::Access, lo - T.lo[size_t(c.dim)], what});
      out.push_back({SizeCondition::Kind::Access, T.hi[size_t(c.dim)] - hi, what});
    }
  }
  // Drop what holds for every size (constants >= 0) and repeats.
  std::vector<SizeCondition> kept;
  for (SizeCondition& c : out) {
    if (auto v = c.nonnegative.constant(); v && *v >= 0) continue;
    bool seen = false;
    for (const SizeCondition& k : kept) seen = seen || k.nonnegative == c.nonnegative;
    if (!seen) kept.push_back(std::move(c));
  }
  return kept;
}

}  // namespace tcs
