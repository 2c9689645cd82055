#include "poly/MappingOptions.h"

#include <algorithm>
#include <functional>
#include <set>

#include "lang/Sema.h"
#include "support/HostCpu.h"
#include "support/Json.h"

namespace tcs {

std::string_view fusion_strategy_name(FusionStrategy f) {
  switch (f) {
    case FusionStrategy::Max: return "Max";
    case FusionStrategy::Preserve3Coincident: return "Preserve3Coincident";
    case FusionStrategy::Min: return "Min";
  }
  return "?";
}

std::string_view kernel_class_name(KernelClass k) {
  switch (k) {
    case KernelClass::Contraction: return "contraction";
    case KernelClass::Reduction: return "reduction";
    case KernelClass::Elementwise: return "elementwise";
  }
  return "?";
}

namespace {

constexpr size_t kMaxTileLevels = 8;
constexpr int64_t kMaxTileSize = int64_t(1) << 30;

std::string field_at(const JsonValue& v, const std::string& field) {
  return "line " + std::to_string(v.line) + ", column " + std::to_string(v.column) + ": " + field;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Reads one JSON object member by member; each reader reports errors with the field's
// full name ("cpu.vectorWidth") and where it is.
class OptionReader {
 public:
  struct Field {
    std::string_view key;
    std::function<Status(const JsonValue&, const std::string& name)> read;
  };

  static Status read_object(const JsonValue& v, const std::string& prefix, const std::vector<Field>& fields) {
    if (v.kind != JsonValue::Kind::Object)
      return Error{ErrorKind::Options, field_at(v, prefix.empty() ? "the options" : prefix) + " must be an object, got " +
                   std::string(JsonValue::kind_name(v.kind))};
    for (const auto& [key, value] : v.object) {
      auto f = std::find_if(fields.begin(), fields.end(), [&](const Field& x) { return x.key == key; });
      std::string name = prefix.empty() ? key : prefix + "." + key;
      if (f == fields.end()) {
        std::string hint;
        size_t best = 3;
        for (const Field& x : fields)
          if (size_t d = edit_distance(key, x.key); d < best) best = d, hint = std::string(x.key);
        return Error{ErrorKind::Options, field_at(value, "unknown option '" + name + "'") +
                     (hint.empty() ? "" : " (did you mean '" + (prefix.empty() ? hint : prefix + "." + hint) + "'?)")};
      }
      if (Status s = f->read(value, name); !s) return s;
    }
    return success();
  }

  static Status boolean(const JsonValue& v, const std::string& name, bool& out) {
    if (v.kind != JsonValue::Kind::Bool)
      return Error{ErrorKind::Options, field_at(v, name) + " must be true or false, got " + std::string(JsonValue::kind_name(v.kind))};
    out = v.boolean;
    return success();
  }

  static Status integer(const JsonValue& v, const std::string& name, int64_t& out) {
    if (v.kind != JsonValue::Kind::Number || !v.is_integer)
      return Error{ErrorKind::Options, field_at(v, name) + " must be an integer, got " +
                   (v.kind == JsonValue::Kind::Number ? "a fractional number" : std::string(JsonValue::kind_name(v.kind)))};
    out = v.integer;
    return success();
  }

  static Status integer_list(const JsonValue& v, const std::string& name, std::vector<int64_t>& out) {
    if (v.kind != JsonValue::Kind::Array)
      return Error{ErrorKind::Options, field_at(v, name) + " must be an array of integers, got " + std::string(JsonValue::kind_name(v.kind))};
    out.clear();
    for (size_t i = 0; i < v.array.size(); ++i) {
      int64_t x = 0;
      if (Status s = integer(v.array[i], name + "[" + std::to_string(i) + "]", x); !s) return s;
      out.push_back(x);
    }
    return success();
  }

  static Status fusion(const JsonValue& v, const std::string& name, FusionStrategy& out) {
    for (FusionStrategy f : {FusionStrategy::Max, FusionStrategy::Preserve3Coincident, FusionStrategy::Min})
      if (v.kind == JsonValue::Kind::String && v.string == fusion_strategy_name(f)) return out = f, success();
    return Error{ErrorKind::Options, field_at(v, name) + " must be \"Max\", \"Preserve3Coincident\" or \"Min\"" +
                 (v.kind == JsonValue::Kind::String ? ", got \"" + v.string + "\"" : "")};
  }
};

// Validation where each message names the field and the offending value.
Status check_sizes(const std::vector<int64_t>& sizes, const std::string& name) {
  if (sizes.size() > kMaxTileLevels)
    return Error{ErrorKind::Options, name + " has " + std::to_string(sizes.size()) + " entries; at most " +
                 std::to_string(kMaxTileLevels) + " loops can be tiled"};
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 1 || sizes[i] > kMaxTileSize)
      return Error{ErrorKind::Options, name + "[" + std::to_string(i) + "] must be a positive integer up to " +
                   std::to_string(kMaxTileSize) + ", got " + std::to_string(sizes[i])};
  return success();
}

}  // namespace

Status mapping_options_validate(const MappingOptions& o) {
  if (Status s = check_sizes(o.tile, "tile"); !s) return s;
  if (Status s = check_sizes(o.register_tile, "registerTile"); !s) return s;
  if (!o.register_tile.empty() && o.tile.empty())
    return Error{ErrorKind::Options, "registerTile needs tile: the register tiles are cut out of the cache tiles"};
  for (size_t i = 0; i < o.register_tile.size() && i < o.tile.size(); ++i)
    if (o.register_tile[i] > o.tile[i])
      return Error{ErrorKind::Options, "registerTile[" + std::to_string(i) + "] (" + std::to_string(o.register_tile[i]) +
                   ") is larger than tile[" + std::to_string(i) + "] (" + std::to_string(o.tile[i]) + ")"};
  if (o.unroll < 1 || o.unroll > 64)
    return Error{ErrorKind::Options, "unroll must be between 1 and 64, got " + std::to_string(o.unroll)};
  const CpuMapping& c = o.cpu;
  if (c.vector_width < 1 || c.vector_width > 64 || (c.vector_width & (c.vector_width - 1)) != 0)
    return Error{ErrorKind::Options, "cpu.vectorWidth must be a power of two from 1 to 64, got " + std::to_string(c.vector_width)};
  std::vector<int> order = c.point_loop_order;
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != int(i))
      return Error{ErrorKind::Options, "cpu.pointLoopOrder must be a permutation of 0.." + std::to_string(int(order.size()) - 1) +
                   " (each loop once)"};
  std::set<std::string> packed;
  for (size_t i = 0; i < c.pack.size(); ++i) {
    const PackRequest& p = c.pack[i];
    std::string name = "cpu.pack[" + std::to_string(i) + "]";
    if (p.tensor.empty()) return Error{ErrorKind::Options, name + ".tensor must name a tensor"};
    if (p.depth < 0 || p.depth > int(kMaxTileLevels))
      return Error{ErrorKind::Options, name + ".depth must be between 0 and " + std::to_string(kMaxTileLevels) + ", got " +
                   std::to_string(p.depth)};
    if (!packed.insert(p.tensor).second) return Error{ErrorKind::Options, name + " packs '" + p.tensor + "' a second time"};
  }
  if (!c.pack.empty() && o.tile.empty()) return Error{ErrorKind::Options, "cpu.pack needs tile: a tensor tile is packed per cache tile"};
  if (c.register_accumulate && o.register_tile.empty())
    return Error{ErrorKind::Options, "cpu.registerAccumulate needs registerTile: it keeps the register tile's accumulators in registers"};
  return success();
}

Expected<MappingOptions> mapping_options_from_json(std::string_view text) {
  Expected<JsonValue> doc = json_parse(text);
  if (!doc) return Error{ErrorKind::Options, "options: " + doc.error()};
  MappingOptions o;
  using R = OptionReader;
  auto int_field = [](int& out, int64_t lo, int64_t hi) {
    return [&out, lo, hi](const JsonValue& v, const std::string& n) -> Status {
      int64_t x = 0;
      if (Status s = R::integer(v, n, x); !s) return s;
      if (x < lo || x > hi)
        return Error{ErrorKind::Options, field_at(v, n) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                     ", got " + std::to_string(x)};
      out = int(x);
      return success();
    };
  };
  auto sizes_field = [](std::vector<int64_t>& out) {
    return [&out](const JsonValue& v, const std::string& n) -> Status {
      if (Status s = R::integer_list(v, n, out); !s) return s;
      if (Status s = check_sizes(out, n); !s) return Error{ErrorKind::Options, field_at(v, s.error())};
      return success();
    };
  };
  auto pack_field = [&o, &int_field](const JsonValue& v, const std::string& n) -> Status {
    if (v.kind != JsonValue::Kind::Array)
      return Error{ErrorKind::Options, field_at(v, n) + " must be an array of {\"tensor\": NAME, \"depth\": N}"};
    o.cpu.pack.clear();
    for (size_t i = 0; i < v.array.size(); ++i) {
      PackRequest p;
      std::string en = n + "[" + std::to_string(i) + "]";
      bool has_tensor = false;
      Status s = R::read_object(v.array[i], en,
          {{"tensor", [&](const JsonValue& t, const std::string& tn) -> Status {
              if (t.kind != JsonValue::Kind::String) return Error{ErrorKind::Options, field_at(t, tn) + " must be a string"};
              p.tensor = t.string, has_tensor = true;
              return success();
            }},
           {"depth", int_field(p.depth, 0, int64_t(kMaxTileLevels))}});
      if (!s) return s;
      if (!has_tensor) return Error{ErrorKind::Options, field_at(v.array[i], en) + " needs \"tensor\""};
      o.cpu.pack.push_back(p);
    }
    return success();
  };
  auto order_field = [&o](const JsonValue& v, const std::string& n) -> Status {
    std::vector<int64_t> xs;
    if (Status s = R::integer_list(v, n, xs); !s) return s;
    o.cpu.point_loop_order.clear();
    for (int64_t x : xs) {
      if (x < 0 || x >= int64_t(kMaxTileLevels)) return Error{ErrorKind::Options, field_at(v, n) + " holds " + std::to_string(x) + ", not a loop position"};
      o.cpu.point_loop_order.push_back(int(x));
    }
    return success();
  };
  auto cpu_field = [&](const JsonValue& v, const std::string& n) -> Status {
    return R::read_object(v, n,
        {{"parallel", [&](const JsonValue& x, const std::string& xn) { return R::boolean(x, xn, o.cpu.parallel); }},
         {"vectorize", [&](const JsonValue& x, const std::string& xn) { return R::boolean(x, xn, o.cpu.vectorize); }},
         {"vectorWidth", int_field(o.cpu.vector_width, 1, 64)},
         {"pointLoopOrder", order_field},
         {"pack", pack_field},
         {"registerAccumulate",
          [&](const JsonValue& x, const std::string& xn) { return R::boolean(x, xn, o.cpu.register_accumulate); }}});
  };
  Status s = R::read_object(*doc, "",
      {{"outerScheduleFusionStrategy", [&](const JsonValue& v, const std::string& n) { return R::fusion(v, n, o.outer_fusion); }},
       {"intraTileScheduleFusionStrategy",
        [&](const JsonValue& v, const std::string& n) { return R::fusion(v, n, o.intra_tile_fusion); }},
       {"fixParametersBeforeScheduling",
        [&](const JsonValue& v, const std::string& n) { return R::boolean(v, n, o.fix_parameters_before_scheduling); }},
       {"tile", sizes_field(o.tile)},
       {"registerTile", sizes_field(o.register_tile)},
       {"tileImperfectlyNested",
        [&](const JsonValue& v, const std::string& n) { return R::boolean(v, n, o.tile_imperfectly_nested); }},
       {"unroll", int_field(o.unroll, 1, 64)},
       {"cpu", cpu_field}});
  if (!s) return Error{ErrorKind::Options, "options: " + s.error()};
  if (Status v = mapping_options_validate(o); !v) return Error{ErrorKind::Options, "options: " + v.error()};
  return o;
}

std::string mapping_options_to_json(const MappingOptions& o) {
  auto ints = [](const auto& xs) {
    std::string r = "[";
    for (size_t i = 0; i < xs.size(); ++i) r += (i ? ", " : "") + std::to_string(xs[i]);
    return r + "]";
  };
  auto b = [](bool x) { return x ? "true" : "false"; };
  std::string pack = "[";
  for (size_t i = 0; i < o.cpu.pack.size(); ++i)
    pack += std::string(i ? ", " : "") + "{\"tensor\": " + json_escape(o.cpu.pack[i].tensor) +
            ", \"depth\": " + std::to_string(o.cpu.pack[i].depth) + "}";
  pack += "]";
  std::string s = "{\n";
  s += "  \"outerScheduleFusionStrategy\": \"" + std::string(fusion_strategy_name(o.outer_fusion)) + "\",\n";
  s += "  \"intraTileScheduleFusionStrategy\": \"" + std::string(fusion_strategy_name(o.intra_tile_fusion)) + "\",\n";
  s += "  \"fixParametersBeforeScheduling\": " + std::string(b(o.fix_parameters_before_scheduling)) + ",\n";
  s += "  \"tile\": " + ints(o.tile) + ",\n";
  s += "  \"registerTile\": " + ints(o.register_tile) + ",\n";
  s += "  \"tileImperfectlyNested\": " + std::string(b(o.tile_imperfectly_nested)) + ",\n";
  s += "  \"unroll\": " + std::to_string(o.unroll) + ",\n";
  s += "  \"cpu\": {\n";
  s += "    \"parallel\": " + std::string(b(o.cpu.parallel)) + ",\n";
  s += "    \"vectorize\": " + std::string(b(o.cpu.vectorize)) + ",\n";
  s += "    \"vectorWidth\": " + std::to_string(o.cpu.vector_width) + ",\n";
  s += "    \"pointLoopOrder\": " + ints(o.cpu.point_loop_order) + ",\n";
  s += "    \"pack\": " + pack + ",\n";
  s += "    \"registerAccumulate\": " + std::string(b(o.cpu.register_accumulate)) + "\n";
  s += "  }\n}\n";
  return s;
}

KernelClass classify_kernel(const SemaDef& def) {
  bool reduction = false;
  for (const SemaStmt& s : def.stmts) {
    const ast::Stmt& a = *s.ast;
    if (a.reduce == ast::ReduceOp::None || int(s.indices.size()) == s.lhs_rank) continue;
    reduction = true;
    const ast::Expr& r = *a.rhs;
    bool product_of_reads = a.reduce == ast::ReduceOp::Sum && r.kind == ast::ExprKind::Binary &&
                            r.op == TokenKind::Star && r.args[0]->kind == ast::ExprKind::Access &&
                            r.args[1]->kind == ast::ExprKind::Access;
    if (product_of_reads) return KernelClass::Contraction;
  }
  return reduction ? KernelClass::Reduction : KernelClass::Elementwise;
}

std::vector<std::string> mapping_preset_names() { return {"naive", "default", "contraction", "reduction", "elementwise"}; }

namespace {

// The statement a contraction preset shapes the schedule around: a sum of products whose
// left-hand side has at least two indices (matmul and its transposed and batched forms,
// convolutions). Its last two left-hand indices become the register tile's rows and
// vector columns; indices before them are batch loops; the summed ones run around the
// register tile.
const SemaStmt* contraction_stmt(const SemaDef& def) {
  for (const SemaStmt& s : def.stmts)
    if (s.ast->reduce == ast::ReduceOp::Sum && s.lhs_rank >= 2 && int(s.indices.size()) > s.lhs_rank) return &s;
  return nullptr;
}

// The read of the product `s` whose subscripts do not use index `idx`, if one does not.
const ast::Expr* operand_without(const SemaStmt& s, int idx) {
  const ast::Expr& r = *s.ast->rhs;
  if (r.kind != ast::ExprKind::Binary || r.op != TokenKind::Star) return nullptr;
  for (const auto& operand : r.args) {
    if (operand->kind != ast::ExprKind::Access || operand->ref != ast::NameRef::Tensor) continue;
    bool uses = false;
    for (const AccessConstraint& c : s.constraints)
      for (const auto& sub : operand->args)
        if (c.subscript == sub.get())
          for (int i : c.indices) uses = uses || i == idx;
    if (!uses) return operand.get();
  }
  return nullptr;
}

MappingOptions contraction_preset(const SemaStmt& s) {
  // Register tiles sized for the host's vector registers: 8 rows of two 16-wide vectors
  // with AVX-512 (16 of its 32 registers), 6 rows of two 8-wide vectors with AVX2 (12 of
  // 16). Cache tiles are multiples of them, so no register tile straddles two.
  bool wide = host_vector_bytes() >= 64;
  int64_t rows = wide ? 8 : 6, cols = wide ? 32 : 16, cache_cols = wide ? 512 : 256, cache_k = wide ? 256 : 128;
  int L = s.lhs_rank, n = int(s.indices.size());
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;  // the initialisation in a nest of its own
  for (int i = 0; i < n; ++i) {
    bool batch = i < L - 2, reduced = i >= L;
    o.tile.push_back(batch ? 1 : i == L - 2 ? 96 : i == L - 1 ? cache_cols : i == n - 1 ? cache_k : 1);
    if (!reduced) o.register_tile.push_back(batch ? 1 : i == L - 2 ? rows : cols);
  }
  // Point loops: batch, then the summed ones, then the register tile's rows and columns.
  for (int i = 0; i < L - 2; ++i) o.cpu.point_loop_order.push_back(i);
  for (int i = L; i < n; ++i) o.cpu.point_loop_order.push_back(i);
  o.cpu.point_loop_order.push_back(L - 2);
  o.cpu.point_loop_order.push_back(L - 1);
  o.cpu.vector_width = int(host_vector_bytes() / 4);
  o.cpu.register_accumulate = true;
  // A plain matrix product packs the operand the rows share (B of C = A * B): its cache
  // tile is read once per row tile, and the copy turns its rows 4 KiB apart into a dense
  // block. Batched products re-pack per batch entry for little reuse, so they do not.
  if (L == 2)
    if (const ast::Expr* shared = operand_without(s, L - 2)) o.cpu.pack.push_back({shared->name, int(o.tile.size())});
  return o;
}

}  // namespace

Expected<MappingOptions> mapping_preset(std::string_view name, const SemaDef& def) {
  MappingOptions o;
  o.cpu.vector_width = std::max(4, host_vector_bytes() / 4);  // float lanes of the widest register
  if (name == "naive") {
    o.outer_fusion = FusionStrategy::Min;
    o.cpu.parallel = false;
    o.cpu.vectorize = false;
    return o;
  }
  const SemaStmt* contraction = contraction_stmt(def);
  if (name == "contraction" && !contraction)
    return Error{ErrorKind::Options, "preset 'contraction' needs a sum of products with at least two left-hand indices and a summed "
                 "one; '" + def.name + "' has none"};
  if (name == "contraction" || (name == "default" && classify_kernel(def) == KernelClass::Contraction && contraction))
    return contraction_preset(*contraction);
  if (name == "default" || name == "reduction" || name == "elementwise") {
    // Other kernels: statements apart, the outer parallel loop on threads, the inner
    // parallel loop vectorised; no tiling until the tuner finds better.
    o.outer_fusion = FusionStrategy::Min;
    return o;
  }
  std::string known;
  for (const std::string& n : mapping_preset_names()) known += (known.empty() ? "" : ", ") + n;
  return Error{ErrorKind::Options, "unknown preset '" + std::string(name) + "' (known presets: " + known + ")"};
}

}  // namespace tcs
