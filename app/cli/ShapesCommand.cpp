#include <iostream>

#include "cli/Commands.h"
#include "cli/KernelSetup.h"
#include "support/Json.h"

namespace tcs::cli {

static const char* kShapesHelp = R"(usage: tcstudio-cli shapes FILE.tc [--entry NAME] [--size NAME=INT ...]
                          [--input NAME=FILE.npy ...] [--json]

Prints the element type, shape and first coordinates of every output and temporary, and
the inferred range of every index of every statement. Sizes come from --size, then from
the shapes of --input tensors, then from the file's "# sizes:" header comment.

  --entry NAME   the def to use (needed when the file holds several)
  --json         {"entry","sizes","outputs":[{"name","type","shape","min"}],
                  "temporaries":[...],"indices":{"S0":{"i":[lo,hi]}}}
)";

namespace {

void write_tensor(JsonWriter& w, const SemaTensor& t, const TensorShape& s) {
  w.begin_object();
  w.field("name", t.name);
  w.field("type", scalar_type_name(t.type));
  w.key("shape");
  w.begin_array();
  for (int64_t e : s.extent) w.value(e);
  w.end_array();
  w.key("min");
  w.begin_array();
  for (int64_t m : s.min) w.value(m);
  w.end_array();
  w.end_object();
}

void print_json(const KernelSetup& k) {
  const SemaDef& def = *k.def;
  JsonWriter w;
  w.begin_object();
  w.field("entry", def.name);
  w.key("sizes");
  w.begin_object();
  for (const auto& [n, v] : k.shapes.sizes) w.field(n, v);
  w.end_object();
  for (TensorRole role : {TensorRole::Output, TensorRole::Temporary}) {
    w.key(role == TensorRole::Output ? "outputs" : "temporaries");
    w.begin_array();
    for (size_t t = 0; t < def.tensors.size(); ++t)
      if (def.tensors[t].role == role) write_tensor(w, def.tensors[t], k.shapes.tensors[t]);
    w.end_array();
  }
  w.key("indices");
  w.begin_object();
  for (size_t s = 0; s < def.stmts.size(); ++s) {
    w.key("S" + std::to_string(s));
    w.begin_object();
    for (const IndexRange& r : k.shapes.stmts[s]) {
      w.key(r.name);
      w.begin_array();
      w.value(r.lo);
      w.value(r.hi);
      w.end_array();
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
  std::cout << w.str() << "\n";
}

void print_text(const KernelSetup& k) {
  const SemaDef& def = *k.def;
  std::cout << "def " << def.name << "  (" << sizes_describe(def, k.shapes.sizes) << ")\n";
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    const SemaTensor& T = def.tensors[t];
    if (T.role == TensorRole::Input) continue;
    const TensorShape& s = k.shapes.tensors[t];
    std::cout << "  " << (T.role == TensorRole::Output ? "output    " : "temporary ") << T.name << "  "
              << scalar_type_name(T.type) << shape_string(s.extent);
    bool nonzero = false;
    for (int64_t m : s.min) nonzero |= m != 0;
    if (nonzero) std::cout << "  starting at " << shape_string(s.min);
    std::cout << "\n";
  }
  for (size_t s = 0; s < def.stmts.size(); ++s) {
    const SemaStmt& st = def.stmts[s];
    std::cout << "  S" << s << "  " << k.checked->file.slice(st.ast->range);
    for (size_t i = 0; i < st.indices.size(); ++i) {
      const IndexRange& r = k.shapes.stmts[s][i];
      const SemaIndex& ix = st.indices[i];
      std::cout << "\n       " << r.name << " in [" << r.lo << ", " << r.hi << "]";
      // The symbolic bounds say where the numbers come from (h in [0, H - KH]).
      if (!ix.lo.constant() || !ix.hi.constant()) std::cout << "  = [" << ix.lo.str() << ", " << ix.hi.str() << "]";
      if (i >= size_t(st.lhs_rank)) std::cout << "  (reduction)";
      if (ix.from_where) std::cout << "  (where)";
    }
    std::cout << "\n";
  }
}

}  // namespace

int command_shapes(const std::vector<std::string>& argv) {
  auto parsed = parse_command(argv, {{"entry", true}, {"size", true, true}, {"input", true, true}, {"json", false}},
                              "shapes", kShapesHelp);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  auto setup = kernel_setup(args, "shapes");
  if (auto* code = std::get_if<int>(&setup)) return *code;
  const CliKernel& k = std::get<CliKernel>(setup);
  if (args.has("json")) print_json(k);
  else print_text(k);
  return kSuccess;
}

}  // namespace tcs::cli
