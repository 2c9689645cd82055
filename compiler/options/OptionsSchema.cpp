#include "options/OptionsSchema.h"
#include "options/OptionsTable.h"

#include <algorithm>
#include <functional>
#include <cstdint>

#include "lang/Sema.h"

namespace tcs {

using json = options_table::json;
using options_table::kind_of;

namespace {

// One entry per loop of a band: a volumetric convolution has nine, a grouped one ten.
constexpr int kMaxTileLevels = 16;
constexpr int64_t kMaxTileSize = int64_t(1) << 30;

const std::vector<std::string> kFusions = {"Max", "Preserve3Coincident", "Min"};

// How a row reaches its member of MappingOptions.
struct Access {
  std::function<json(const MappingOptions&)> get;
  std::function<void(MappingOptions&, const json&)> set;  // the value is already checked
};

struct Row {
  OptionField field;
  Access access;
};

FusionStrategy fusion_from(const json& v) {
  std::string s = v.get<std::string>();
  return s == "Max" ? FusionStrategy::Max : s == "Min" ? FusionStrategy::Min : FusionStrategy::Preserve3Coincident;
}

// A boolean member, named by a function that returns a reference to it (reading goes
// through the same function, which does not modify).
Access bool_member(bool& (*member)(MappingOptions&)) {
  return {[member](const MappingOptions& o) { return json(member(const_cast<MappingOptions&>(o))); },
          [member](MappingOptions& o, const json& v) { member(o) = v.get<bool>(); }};
}

// The table. Defaults are MappingOptions' own initialisers.
const std::vector<Row>& rows() {
  static const std::vector<Row> table = [] {
    std::vector<Row> t;
    auto fusion = [](const char* name, FusionStrategy MappingOptions::*m, const char* meaning) {
      OptionField f{name, "", OptionType::Choice, 0, 0, false, 0, kFusions, {}, meaning};
      return Row{f, {[m](const MappingOptions& o) { return json(std::string(fusion_strategy_name(o.*m))); },
                     [m](MappingOptions& o, const json& v) { o.*m = fusion_from(v); }}};
    };
    auto sizes = [](const char* name, std::vector<int64_t> MappingOptions::*m, const char* meaning) {
      OptionField f{name, "", OptionType::Sizes, 1, kMaxTileSize, false, kMaxTileLevels, {}, {1, 2, 3, 4, 5, 7, 8, 16, 32}, meaning};
      return Row{f, {[m](const MappingOptions& o) { return json(o.*m); },
                     [m](MappingOptions& o, const json& v) { o.*m = v.get<std::vector<int64_t>>(); }}};
    };
    t.push_back(fusion("outerScheduleFusionStrategy", &MappingOptions::outer_fusion,
                       "which statements the scheduler may fuse: Max as many as it can, Preserve3Coincident while "
                       "three outer loops stay parallel, Min only where required. Under Max and Preserve3Coincident, "
                       "loop nests over the same rows whose dependences stay within a row (a softmax, a layernorm) are "
                       "then fused into one parallel loop over rows, and their temporaries shrink to a row buffer"));
    t.push_back(fusion("intraTileScheduleFusionStrategy", &MappingOptions::intra_tile_fusion,
                       "inside a tile: Min runs the statement groups one after the other, Max and "
                       "Preserve3Coincident keep them interleaved"));
    t.push_back({{"fixParametersBeforeScheduling", "", OptionType::Bool, 0, 0, false, 0, {}, {},
                  "schedule for the concrete sizes rather than for symbolic ones"},
                 bool_member([](MappingOptions& o) -> bool& { return o.fix_parameters_before_scheduling; })});
    t.push_back(sizes("tile", &MappingOptions::tile, "cache tile sizes of the outermost permutable band, outer loop first; [] for no tiling"));
    t.push_back(sizes("registerTile", &MappingOptions::register_tile,
                      "a second tiling level inside the cache tiles, kept in registers; [] for none"));
    t.push_back({{"tileImperfectlyNested", "", OptionType::Bool, 0, 0, false, 0, {}, {},
                  "also tile bands that do not reach every statement"},
                 bool_member([](MappingOptions& o) -> bool& { return o.tile_imperfectly_nested; })});
    t.push_back({{"unroll", "", OptionType::Int, 1, 64, false, 0, {}, {}, "unroll factor of the innermost loop"},
                 {[](const MappingOptions& o) { return json(o.unroll); },
                  [](MappingOptions& o, const json& v) { o.unroll = int(v.get<int64_t>()); }}});
    t.push_back({{"cpu.parallel", "cpu", OptionType::Bool, 0, 0, false, 0, {}, {},
                  "run the outermost parallel loop on the thread pool"},
                 bool_member([](MappingOptions& o) -> bool& { return o.cpu.parallel; })});
    t.push_back({{"cpu.vectorize", "cpu", OptionType::Bool, 0, 0, false, 0, {}, {}, "vectorise the innermost parallel loop"},
                 bool_member([](MappingOptions& o) -> bool& { return o.cpu.vectorize; })});
    t.push_back({{"cpu.vectorWidth", "cpu", OptionType::Int, 1, 64, true, 0, {}, {},
                  "lanes of a vector (8 floats fill an AVX2 register, 16 an AVX-512 one)"},
                 {[](const MappingOptions& o) { return json(o.cpu.vector_width); },
                  [](MappingOptions& o, const json& v) { o.cpu.vector_width = int(v.get<int64_t>()); }}});
    t.push_back({{"cpu.pointLoopOrder", "cpu", OptionType::Permutation, 0, kMaxTileLevels - 1, false, kMaxTileLevels, {}, {},
                  "order of the point loops of the innermost tiled band (a permutation); [] as scheduled"},
                 {[](const MappingOptions& o) { return json(o.cpu.point_loop_order); },
                  [](MappingOptions& o, const json& v) { o.cpu.point_loop_order = v.get<std::vector<int>>(); }}});
    t.push_back({{"cpu.pack", "cpu", OptionType::PackList, 0, kMaxTileLevels, false, 0, {}, {},
                  "copy a tensor's tile into a local buffer this many loops into its tiled band, its dimensions in "
                  "`order` (outermost first; [1, 0] transposes a matrix)"},
                 {[](const MappingOptions& o) {
                    json a = json::array();
                    for (const PackRequest& p : o.cpu.pack) {
                      json e = {{"tensor", p.tensor}, {"depth", p.depth}};
                      if (!p.order.empty()) e["order"] = p.order;
                      a.push_back(e);
                    }
                    return a;
                  },
                  [](MappingOptions& o, const json& v) {
                    o.cpu.pack.clear();
                    for (const json& p : v)
                      o.cpu.pack.push_back({p["tensor"].get<std::string>(), p.value("depth", 0),
                                            p.value("order", std::vector<int>{})});
                  }}});
    t.push_back({{"cpu.registerAccumulate", "cpu", OptionType::Bool, 0, 0, false, 0, {}, {},
                  "keep the register tile's accumulators in registers across its reduction loop"},
                 bool_member([](MappingOptions& o) -> bool& { return o.cpu.register_accumulate; })});
    t.push_back({{"cpu.fetchAhead", "cpu", OptionType::Int, 0, 16, false, 0, {}, {},
                  "the loop around each innermost long loop fetches the data its reads need this many iterations "
                  "ahead (0: none), for reads the hardware prefetcher does not follow: a pooling's pairs of short rows"},
                 {[](const MappingOptions& o) { return json(o.cpu.fetch_ahead); },
                  [](MappingOptions& o, const json& v) { o.cpu.fetch_ahead = int(v.get<int64_t>()); }}});
    t.push_back({{"cpu.streamStores", "cpu", OptionType::Bool, 0, 0, false, 0, {}, {},
                  "outputs the kernel writes and never reads go to memory past the caches (non-temporal stores), "
                  "where a vector store is aligned to its width: no line is read before it is overwritten, none is "
                  "kept. For outputs larger than the cache that nothing reads soon; a tensor not on a 64-byte "
                  "boundary is written the usual way"},
                 bool_member([](MappingOptions& o) -> bool& { return o.cpu.stream_stores; })});
    // The fields that shape one statement's own loops, which `statements` may set per
    // statement; fusion, scheduling and threading stay the kernel's.
    for (Row& r : t)
      for (const char* name : {"tile", "registerTile", "unroll", "cpu.vectorize", "cpu.vectorWidth", "cpu.pointLoopOrder",
                               "cpu.pack", "cpu.registerAccumulate"})
        r.field.per_statement |= r.field.name == name;
    return t;
  }();
  return table;
}

const Row& row_of(const OptionField& f) {
  for (const Row& r : rows())
    if (r.field.name == f.name) return r;
  return rows().front();  // unreachable: fields come from the table
}

Error bad(std::string message) { return Error{ErrorKind::Options, std::move(message)}; }

Status check_integer(const json& v, const std::string& name) {
  if (!v.is_number()) return bad(name + " must be an integer, got " + kind_of(v));
  if (!v.is_number_integer()) return bad(name + " must be an integer, got a fractional number");
  return success();
}

int64_t as_int(const json& v) { return v.is_number_unsigned() ? int64_t(std::min<uint64_t>(v.get<uint64_t>(), INT64_MAX)) : v.get<int64_t>(); }

// The one check of a value against its row; messages name the field (and the entry).
Status check_value(const OptionField& f, const json& v) {
  const std::string& n = f.name;
  switch (f.type) {
    case OptionType::Bool:
      if (!v.is_boolean()) return bad(n + " must be true or false, got " + kind_of(v));
      return success();
    case OptionType::Int: {
      if (Status s = check_integer(v, n); !s) return s;
      int64_t x = as_int(v);
      if (f.power_of_two && (x < f.min || x > f.max || (x & (x - 1)) != 0))
        return bad(n + " must be a power of two from " + std::to_string(f.min) + " to " + std::to_string(f.max) +
                   ", got " + std::to_string(x));
      if (x < f.min || x > f.max)
        return bad(n + " must be between " + std::to_string(f.min) + " and " + std::to_string(f.max) + ", got " +
                   std::to_string(x));
      return success();
    }
    case OptionType::Choice: {
      std::string list;
      for (size_t i = 0; i < f.choices.size(); ++i)
        list += (i == 0 ? "" : i + 1 == f.choices.size() ? " or " : ", ") + ("\"" + f.choices[i] + "\"");
      if (v.is_string() && std::find(f.choices.begin(), f.choices.end(), v.get<std::string>()) != f.choices.end())
        return success();
      return bad(n + " must be " + list + (v.is_string() ? ", got \"" + v.get<std::string>() + "\"" : ""));
    }
    case OptionType::Sizes:
    case OptionType::Permutation: {
      if (!v.is_array()) return bad(n + " must be an array of integers, got " + kind_of(v));
      if (int(v.size()) > f.max_entries)
        return bad(n + " has " + std::to_string(v.size()) + " entries; at most " + std::to_string(f.max_entries) +
                   " loops can be " + (f.type == OptionType::Sizes ? "tiled" : "ordered"));
      std::vector<int64_t> seen;
      for (size_t i = 0; i < v.size(); ++i) {
        std::string en = n + "[" + std::to_string(i) + "]";
        if (Status s = check_integer(v[i], en); !s) return s;
        int64_t x = as_int(v[i]);
        if (f.type == OptionType::Sizes && (x < f.min || x > f.max))
          return bad(en + " must be a positive integer up to " + std::to_string(f.max) + ", got " + std::to_string(x));
        seen.push_back(x);
      }
      if (f.type == OptionType::Permutation) {
        std::sort(seen.begin(), seen.end());
        for (size_t i = 0; i < seen.size(); ++i)
          if (seen[i] != int64_t(i))
            return bad(n + " must be a permutation of 0.." + std::to_string(int(seen.size()) - 1) + " (each once)");
      }
      return success();
    }
    case OptionType::PackList: {
      if (!v.is_array()) return bad(n + " must be an array of {\"tensor\": NAME, \"depth\": N}");
      std::vector<std::string> tensors;
      for (size_t i = 0; i < v.size(); ++i) {
        std::string en = n + "[" + std::to_string(i) + "]";
        const json& p = v[i];
        if (!p.is_object()) return bad(en + " must be an object, got " + kind_of(p));
        for (const auto& [key, value] : p.items())
          if (key != "tensor" && key != "depth" && key != "order")
            return bad("unknown option '" + en + "." + key + "' (a pack request has \"tensor\", \"depth\" and \"order\")");
        if (!p.contains("tensor")) return bad(en + " needs \"tensor\"");
        if (!p["tensor"].is_string()) return bad(en + ".tensor must be a string");
        std::string tensor = p["tensor"].get<std::string>();
        if (tensor.empty()) return bad(en + ".tensor must name a tensor");
        if (p.contains("depth")) {
          if (Status s = check_integer(p["depth"], en + ".depth"); !s) return s;
          int64_t d = as_int(p["depth"]);
          if (d < f.min || d > f.max)
            return bad(en + ".depth must be between " + std::to_string(f.min) + " and " + std::to_string(f.max) +
                       ", got " + std::to_string(d));
        }
        if (p.contains("order")) {
          OptionField perm{en + ".order", "", OptionType::Permutation, 0, 0, false, kMaxTileLevels, {}, {}, ""};
          if (Status s = check_value(perm, p["order"]); !s) return s;
        }
        if (std::find(tensors.begin(), tensors.end(), tensor) != tensors.end())
          return bad(en + " packs '" + tensor + "' a second time");
        tensors.push_back(tensor);
      }
      return success();
    }
  }
  return success();
}

}  // namespace

const std::vector<OptionField>& option_fields() {
  static const std::vector<OptionField> fields = [] {
    std::vector<OptionField> f;
    for (const Row& r : rows()) f.push_back(r.field);
    return f;
  }();
  return fields;
}

const OptionField* find_option_field(std::string_view name) {
  for (const OptionField& f : option_fields())
    if (f.name == name) return &f;
  return nullptr;
}

std::string option_allowed(const OptionField& f) {
  switch (f.type) {
    case OptionType::Bool: return "true or false";
    case OptionType::Int:
      return "integer " + std::to_string(f.min) + ".." + std::to_string(f.max) + (f.power_of_two ? ", a power of two" : "");
    case OptionType::Choice: {
      std::string s;
      for (const std::string& c : f.choices) s += (s.empty() ? "" : ", ") + ("\"" + c + "\"");
      return "one of " + s;
    }
    case OptionType::Sizes:
      return "up to " + std::to_string(f.max_entries) + " integers, each " + std::to_string(f.min) + ".." +
             std::to_string(f.max);
    case OptionType::Permutation:
      return "a permutation of 0..n-1, n up to " + std::to_string(f.max_entries);
    case OptionType::PackList:
      return "[{\"tensor\": NAME, \"depth\": " + std::to_string(f.min) + ".." + std::to_string(f.max) +
             ", \"order\": [dimensions]}, ...], each tensor once";
  }
  return "";
}

std::string option_get(const MappingOptions& o, const OptionField& f) {
  return options_table::inline_text(row_of(f).access.get(o));
}

std::vector<std::string> option_differences(const MappingOptions& a, const MappingOptions& b) {
  std::vector<std::string> out;
  for (const OptionField& f : option_fields())
    if (std::string va = option_get(a, f), vb = option_get(b, f); va != vb) out.push_back(f.name + ": " + va + " \u2192 " + vb);
  // Per-statement fields, each as the statement's loops see it (its own or the kernel's).
  std::vector<std::string> ids;
  for (const MappingOptions* o : {&a, &b})
    for (const StatementOptions& s : o->statements)
      if (std::find(ids.begin(), ids.end(), s.statement) == ids.end()) ids.push_back(s.statement);
  std::sort(ids.begin(), ids.end());
  for (const std::string& id : ids) {
    auto sa = mapping_options_for_statement(a, id), sb = mapping_options_for_statement(b, id);
    if (!sa || !sb) continue;
    for (const OptionField& f : option_fields())
      if (std::string va = option_get(*sa, f), vb = option_get(*sb, f); f.per_statement && va != vb)
        out.push_back("statements." + id + "." + f.name + ": " + va + " \u2192 " + vb);
  }
  return out;
}

Status option_set(MappingOptions& o, const OptionField& f, std::string_view text) {
  json v = json::parse(text, nullptr, false);
  if (v.is_discarded()) return bad(f.name + ": '" + std::string(text) + "' is not a value (" + option_allowed(f) + ")");
  if (Status s = check_value(f, v); !s) return s;
  row_of(f).access.set(o, v);
  return success();
}

Expected<MappingOptions> mapping_options_for_statement(const MappingOptions& o, std::string_view statement) {
  MappingOptions r = o;
  r.statements.clear();
  auto own = std::find_if(o.statements.begin(), o.statements.end(), [&](const StatementOptions& s) { return s.statement == statement; });
  if (own == o.statements.end()) return r;
  const std::string prefix = "statements." + own->statement;
  for (const auto& [name, value] : own->fields) {
    const OptionField* f = find_option_field(name);
    if (!f) return bad("unknown option '" + prefix + "." + name + "'");
    if (!f->per_statement) return bad(prefix + "." + name + " is the whole kernel's option; it cannot be set per statement");
    if (Status s = option_set(r, *f, value); !s) return bad(prefix + "." + s.error());
  }
  return r;
}

namespace options_table {

Status check(const OptionField& f, const json& v) { return check_value(f, v); }

Status set(MappingOptions& o, const OptionField& f, const json& v) {
  if (Status s = check_value(f, v); !s) return s;
  row_of(f).access.set(o, v);
  return success();
}

json get(const MappingOptions& o, const OptionField& f) { return row_of(f).access.get(o); }

std::string kind_of(const json& v) {
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::string inline_text(const json& v) {
  std::string s;
  if (v.is_array()) {
    for (const json& e : v) s += (s.empty() ? "" : ", ") + inline_text(e);
    return "[" + s + "]";
  }
  if (v.is_object()) {
    for (const auto& [key, e] : v.items()) s += (s.empty() ? "" : ", ") + json(key).dump() + ": " + inline_text(e);
    return "{" + s + "}";
  }
  return v.dump();
}

}  // namespace options_table

namespace {

MappingOptions random_kernel_options(std::mt19937_64& rng, const SemaDef& def) {
  auto pick = [&](int64_t n) { return int64_t(rng() % uint64_t(std::max<int64_t>(n, 1))); };
  MappingOptions o;
  for (const OptionField& f : option_fields()) {
    json v;
    switch (f.type) {
      case OptionType::Bool: v = pick(2) == 1; break;
      case OptionType::Int:
        if (f.power_of_two) {
          int64_t x = 1, top = 0;
          while ((x << (top + 1)) <= f.max) ++top;
          v = int64_t(1) << pick(top + 1);
        } else if (f.min == 0) {
          // A distance that may be off (cpu.fetchAhead): off half the time, else 1, 2 or 4.
          v = pick(2) ? int64_t(0) : int64_t(1) << pick(3);
        } else {
          // Small values are the useful ones for an unroll factor: powers of two up to 4.
          v = std::min<int64_t>(f.max, f.min << pick(3));
        }
        break;
      case OptionType::Choice: v = f.choices[size_t(pick(int64_t(f.choices.size())))]; break;
      case OptionType::Sizes: {
        v = json::array();
        // Up to three levels of tiling; the register tile (drawn after the tile) is made
        // to fit below.
        for (int64_t i = 0, n = pick(4); i < n; ++i) v.push_back(f.samples[size_t(pick(int64_t(f.samples.size())))]);
        break;
      }
      case OptionType::Permutation: v = json::array(); break;
      case OptionType::PackList: {
        v = json::array();
        if (pick(3) == 0) {
          const SemaTensor& t = def.tensors[size_t(pick(int64_t(def.tensors.size())))];
          if (t.role == TensorRole::Input) v.push_back({{"tensor", t.name}, {"depth", 0}});
          if (t.role == TensorRole::Input && t.rank() == 2 && pick(2)) v.back()["order"] = {1, 0};
        }
        break;
      }
    }
    row_of(f).access.set(o, v);
  }
  // Make the draw consistent, the rules of mapping_options_validate in reverse.
  if (o.tile.empty() || pick(2)) o.register_tile.clear();
  if (o.register_tile.size() > std::min<size_t>(2, o.tile.size())) o.register_tile.resize(std::min<size_t>(2, o.tile.size()));
  for (size_t i = 0; i < o.register_tile.size(); ++i) o.register_tile[i] = 1 + pick(std::min<int64_t>(8, o.tile[i]));
  if (o.register_tile.empty()) o.cpu.register_accumulate = false;
  if (o.tile.empty()) o.cpu.pack.clear();
  for (PackRequest& p : o.cpu.pack) p.depth = int(pick(int64_t(o.tile.size()) + 1));
  return o;
}

}  // namespace

MappingOptions random_mapping_options(std::mt19937_64& rng, const SemaDef& def) {
  MappingOptions o = random_kernel_options(rng, def);
  // Half the time one statement of a kernel with several takes the per-statement fields
  // of a second draw (consistent among themselves, as that draw is).
  if (def.stmts.size() > 1 && rng() % 2) {
    MappingOptions other = random_kernel_options(rng, def);
    size_t k = rng() % def.stmts.size();
    StatementOptions own{"S" + std::to_string(k), {}};
    // A pack list of its own only where it compiles: each tensor it packs read by this
    // statement, each the kernel packs read by another.
    auto reads = [&](size_t stmt, const std::string& tensor) {
      for (const AccessConstraint& c : def.stmts[stmt].constraints)
        if (c.subscript && def.tensors[size_t(c.tensor)].name == tensor) return true;
      return false;
    };
    bool own_packs = std::all_of(other.cpu.pack.begin(), other.cpu.pack.end(), [&](const PackRequest& p) { return reads(k, p.tensor); }) &&
                     std::all_of(o.cpu.pack.begin(), o.cpu.pack.end(), [&](const PackRequest& p) {
                       for (size_t j = 0; j < def.stmts.size(); ++j)
                         if (j != k && reads(j, p.tensor)) return true;
                       return false;
                     });
    if (!own_packs) {  // then its tiles stay the kernel's too, which its packs fit
      other.tile = o.tile, other.register_tile = o.register_tile;
      other.cpu.pack = o.cpu.pack, other.cpu.register_accumulate = o.cpu.register_accumulate;
    }
    for (const OptionField& f : option_fields())
      if (f.per_statement && option_get(other, f) != option_get(o, f)) own.fields[f.name] = option_get(other, f);
    if (!own.fields.empty()) o.statements.push_back(own);
  }
  return o;
}

std::string options_markdown() {
  MappingOptions defaults;
  std::string s =
      "# Mapping options\n\n"
      "Generated from the options table (`compiler/options/OptionsSchema.cpp`) by\n"
      "`tcstudio-cli options --markdown`; a test keeps this file equal to that output.\n\n"
      "Options are JSON (`tcstudio-cli compile --options FILE.json`, the IDE's options panel).\n"
      "Fields left out keep their default; a preset (`--preset`) chooses all of them for a\n"
      "kernel. Fields under `cpu` apply to the CPU target only.\n\n"
      "| field | allowed | default | meaning |\n|---|---|---|---|\n";
  for (const OptionField& f : option_fields()) {
    std::string allowed = option_allowed(f);
    std::replace(allowed.begin(), allowed.end(), '|', '/');
    s += "| `" + f.name + "` | " + allowed + " | `" + option_get(defaults, f) + "` | " + f.meaning + " |\n";
  }
  s += "\n## Per statement\n\n"
       "A kernel with several statements (the layers of an MLP, KRU3's three contractions) can\n"
       "give one its own values of the fields that shape its loops: ";
  std::string own;
  for (const OptionField& f : option_fields())
    if (f.per_statement) own += (own.empty() ? "`" : ", `") + f.name + "`";
  s += own + ".\n"
       "`statements` maps a statement, numbered as the model and the code panes show it (`S0`,\n"
       "`S1`, ...), to those fields; they apply to the loops over that statement and its\n"
       "initialisation, every other field stays the kernel's. Loops shared by statements with\n"
       "different options take the first one's, with a note.\n\n"
       "```json\n"
       "{\"tile\": [1, 1, 32, 16, 32], \"statements\": {\"S2\": {\"tile\": [1, 16, 1, 16, 32], \"cpu\": {\"pointLoopOrder\": [0, 2, 4, 1, 3]}}}}\n"
       "```\n";
  s += "\nBetween fields: `registerTile` needs `tile` and each of its sizes at most the `tile`\n"
       "size at the same position; `cpu.pack` needs `tile`; `cpu.registerAccumulate` needs\n"
       "`registerTile`. Checked against the kernel when it compiles: a packed tensor must exist\n"
       "and be read in a tiled band, and `cpu.pointLoopOrder` must match a tiled band's loops.\n"
       "The same rules hold for each statement's options, and its messages name it\n"
       "(`statements.S2.registerTile[0] ...`).\n";
  return s;
}

}  // namespace tcs
