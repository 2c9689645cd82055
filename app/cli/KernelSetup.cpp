#include "cli/KernelSetup.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <iostream>

#include "runtime/Npy.h"

namespace tcs::cli {

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::variant<KernelSetup, int> kernel_setup(const ParsedArgs& args, const char* command) {
  if (args.positional.size() != 1) {
    std::cerr << "tcstudio-cli " << command << ": expected one FILE.tc (see --help)\n";
    return kUsageError;
  }
  KernelSetup k;
  auto checked = check_file(args.positional[0]);
  if (!checked) {
    std::cerr << "error: " << checked.error() << "\n";
    return kUserError;
  }
  k.checked = std::move(*checked);
  if (k.checked->has_errors()) {
    std::cerr << diagnostics_format(k.checked->file, k.checked->diagnostics);
    return kUserError;
  }
  auto def = select_entry(*k.checked, args.get("entry").value_or(""));
  if (!def) {
    std::cerr << "error: " << def.error() << "\n";
    return kUserError;
  }
  k.def = *def;

  SizeMap sizes;
  for (const std::string& s : args.all("size")) {
    auto kv = split_assignment(s);
    int64_t v = 0;
    if (kv) {
      auto [p, ec] = std::from_chars(kv->second.data(), kv->second.data() + kv->second.size(), v);
      if (ec != std::errc() || p != kv->second.data() + kv->second.size()) kv.reset();
    }
    if (!kv) {
      std::cerr << "tcstudio-cli " << command << ": --size takes NAME=INT, not '" << s << "'\n";
      return kUsageError;
    }
    sizes[kv->first] = v;
  }
  std::map<std::string, TensorSignature> signatures;
  for (const std::string& s : args.all("input")) {
    auto kv = split_assignment(s);
    if (!kv || kv->second.empty()) {
      std::cerr << "tcstudio-cli " << command << ": --input takes NAME=FILE.npy, not '" << s << "'\n";
      return kUsageError;
    }
    if (k.def->find_tensor(kv->first) < 0) {
      std::cerr << "error: '" << k.def->name << "' has no tensor named '" << kv->first << "'\n";
      return kUserError;
    }
    auto t = npy_read(kv->second);
    if (!t) {
      std::cerr << "error: " << t.error() << "\n";
      return kUserError;
    }
    signatures[kv->first] = {t->dtype, t->shape};
    k.supplied[kv->first] = std::move(*t);
  }
  // Sizes neither given nor implied by a supplied tensor come from the "# sizes:" header.
  SizeMap header = sizes_from_header(k.checked->file.text());
  for (const std::string& p : k.def->size_params) {
    if (sizes.count(p)) continue;
    bool implied = false;
    for (const auto& [name, sig] : signatures) {
      int t = k.def->find_tensor(name);
      const auto& decls = k.def->tensors[size_t(t)].role == TensorRole::Input ? k.def->ast->params : k.def->ast->outputs;
      for (const ast::TensorDecl& d : decls)
        if (d.name == name)
          for (const ast::Dim& dim : d.dims) implied |= dim.name == p;
    }
    if (!implied && header.count(p)) sizes[p] = header[p];
  }
  auto bound = sizes_bind(*k.def, sizes, signatures);
  if (!bound) {
    std::cerr << "error: " << bound.error() << "\n";
    return kUserError;
  }
  auto shapes = shapes_evaluate(*k.def, *bound);
  if (!shapes) {
    std::cerr << "error: " << shapes.error() << "\n";
    return kUserError;
  }
  k.shapes = std::move(*shapes);
  // Refuse sizes whose tensors cannot all be in memory at once, before anything allocates.
  double bytes = 0;
  for (size_t t = 0; t < k.def->tensors.size(); ++t)
    bytes += double(k.shapes.tensors[t].numel()) * scalar_type_bytes(k.def->tensors[t].type);
  double memory = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (memory > 0 && bytes > 0.9 * memory) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the tensors of '%s' need %.3g bytes at %s, more than this machine's %.3g bytes of memory",
                  k.def->name.c_str(), bytes, sizes_describe(*k.def, k.shapes.sizes).c_str(), memory);
    std::cerr << "error: " << buf << "\n";
    return kUserError;
  }
  return k;
}

std::variant<MappingOptions, int> mapping_options_from_args(const ParsedArgs& args, const SemaDef& def) {
  auto file = args.get("options");
  auto preset = args.get("preset");
  if (file && preset) {
    std::cerr << "error: give --options or --preset, not both\n";
    return kUserError;
  }
  if (file) {
    std::ifstream in(*file, std::ios::binary);
    if (!in) {
      std::cerr << "error: cannot read options file '" << *file << "'\n";
      return kUserError;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto o = mapping_options_from_json(text.str());
    if (!o) {
      std::cerr << "error: " << *file << ": " << o.error() << "\n";
      return kUserError;
    }
    return *o;
  }
  auto o = mapping_preset(preset.value_or("default"), def);
  if (!o) {
    std::cerr << "error: " << o.error() << "\n";
    return kUserError;
  }
  return *o;
}

}  // namespace tcs::cli
