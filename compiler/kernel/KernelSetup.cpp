#include "kernel/KernelSetup.h"

#include <unistd.h>

#include <cstdio>

#include "lang/Diagnostic.h"

namespace tcs {

namespace {

// Whether a supplied tensor's declared shape names size parameter `p`.
bool implied_by_supplied(const SemaDef& def, const std::string& p, const std::map<std::string, TensorSignature>& supplied) {
  for (const auto& [name, sig] : supplied)
    if (const ast::TensorDecl* d = def.declaration(def.find_tensor(name)))
      for (const ast::Dim& dim : d->dims)
        if (dim.name == p) return true;
  return false;
}

// Refuse sizes whose tensors cannot all be in memory at once, before anything allocates.
Status check_fits_in_memory(const SemaDef& def, const DefShapes& shapes) {
  double bytes = 0;
  for (size_t t = 0; t < def.tensors.size(); ++t)
    bytes += double(shapes.tensors[t].numel()) * scalar_type_bytes(def.tensors[t].type);
  double memory = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (memory > 0 && bytes > 0.9 * memory) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "the tensors of '%s' need %.3g bytes at %s, more than this machine's %.3g bytes of memory",
                  def.name.c_str(), bytes, sizes_describe(def, shapes.sizes).c_str(), memory);
    return Error{ErrorKind::Sizes, buf};
  }
  return success();
}

}  // namespace

Expected<KernelSetup> kernel_setup(std::shared_ptr<const CheckedFile> checked, const KernelSpec& spec) {
  KernelSetup k;
  k.checked = std::move(checked);
  if (k.checked->has_errors())
    return Error{ErrorKind::Source, diagnostics_format(k.checked->file, k.checked->diagnostics)};
  auto def = select_entry(*k.checked, spec.entry);
  if (!def) return def.failure();
  k.def = *def;
  k.header_sizes = sizes_from_header(k.checked->file.text(), k.def->ast->range.begin);
  for (const auto& [name, sig] : spec.supplied)
    if (k.def->find_tensor(name) < 0)
      return Error{ErrorKind::Sizes, "'" + k.def->name + "' has no tensor named '" + name + "'"};

  SizeMap sizes = spec.sizes;
  for (const std::string& p : k.def->size_params)
    if (!sizes.count(p) && !implied_by_supplied(*k.def, p, spec.supplied))
      if (auto h = k.header_sizes.find(p); h != k.header_sizes.end()) sizes[p] = h->second;
  auto bound = sizes_bind(*k.def, sizes, spec.supplied);
  if (!bound) return bound.failure();
  auto shapes = shapes_evaluate(*k.def, *bound);
  if (!shapes) return shapes.failure();
  k.shapes = std::move(*shapes);
  if (Status s = check_fits_in_memory(*k.def, k.shapes); !s) return s.failure();
  return k;
}

Expected<MappingOptions> kernel_options(const SemaDef& def, const OptionsChoice& choice, const DefShapes* shapes) {
  if (!choice.json.empty()) return mapping_options_from_json(choice.json);
  return mapping_preset(choice.preset, def, shapes);
}

}  // namespace tcs
