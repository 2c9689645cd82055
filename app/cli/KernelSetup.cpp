#include "cli/KernelSetup.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "lang/Diagnostic.h"
#include "runtime/Npy.h"
#include "tuner/BestOptions.h"

namespace tcs::cli {

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::variant<std::shared_ptr<const CheckedFile>, int> checked_file(const std::string& path) {
  auto checked = check_file(path);
  if (!checked) {
    std::cerr << "error: " << checked.error() << "\n";
    return kUserError;
  }
  std::shared_ptr<const CheckedFile> file = std::move(*checked);
  if (file->has_errors()) {
    std::cerr << diagnostics_format(file->file, file->diagnostics);
    return kUserError;
  }
  return file;
}

std::optional<SizeMap> parse_sizes(const std::vector<std::string>& items, const char* command, const char* flag) {
  SizeMap sizes;
  for (const std::string& s : items) {
    auto kv = split_assignment(s);
    int64_t v = 0;
    if (kv) {
      auto [p, ec] = std::from_chars(kv->second.data(), kv->second.data() + kv->second.size(), v);
      if (ec != std::errc() || p != kv->second.data() + kv->second.size()) kv.reset();
    }
    if (!kv) {
      std::cerr << "tcstudio-cli " << command << ": " << flag << " takes NAME=INT, not '" << s << "'\n";
      return std::nullopt;
    }
    sizes[kv->first] = v;
  }
  return sizes;
}

std::variant<CliKernel, int> kernel_setup(const ParsedArgs& args, const char* command) {
  if (args.positional.size() != 1) {
    std::cerr << "tcstudio-cli " << command << ": expected one FILE.tc (see --help)\n";
    return kUsageError;
  }
  KernelSpec spec;
  spec.entry = args.get("entry").value_or("");
  auto sizes = parse_sizes(args.all("size"), command, "--size");
  if (!sizes) return kUsageError;
  spec.sizes = *sizes;
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const std::string& s : args.all("input")) {
    auto kv = split_assignment(s);
    if (!kv || kv->second.empty()) {
      std::cerr << "tcstudio-cli " << command << ": --input takes NAME=FILE.npy, not '" << s << "'\n";
      return kUsageError;
    }
    inputs.push_back(*kv);
  }
  auto checked = checked_file(args.positional[0]);
  if (auto* code = std::get_if<int>(&checked)) return *code;
  std::shared_ptr<const CheckedFile> file = std::get<std::shared_ptr<const CheckedFile>>(checked);
  // Name the tensor before reading a file it would not use.
  auto def = select_entry(*file, spec.entry);
  if (!def) {
    std::cerr << "error: " << def.error() << "\n";
    return kUserError;
  }
  TensorMap supplied;
  for (const auto& [name, path] : inputs) {
    if ((*def)->find_tensor(name) < 0) {
      std::cerr << "error: '" << (*def)->name << "' has no tensor named '" << name << "'\n";
      return kUserError;
    }
    auto t = npy_read(path);
    if (!t) {
      std::cerr << "error: " << t.error() << "\n";
      return kUserError;
    }
    spec.supplied[name] = {t->dtype, t->shape};
    supplied[name] = std::move(*t);
  }
  auto setup = tcs::kernel_setup(file, spec);
  if (!setup) {
    std::cerr << "error: " << setup.error() << "\n";
    return kUserError;
  }
  CliKernel k;
  static_cast<KernelSetup&>(k) = std::move(*setup);
  k.supplied = std::move(supplied);
  return k;
}

std::string cache_path_from_args(const ParsedArgs& args) {
  auto db = args.get("db");
  return db && !db->empty() ? *db : tuner::default_cache_path();
}

std::variant<MappingOptions, int> mapping_options_from_args(const ParsedArgs& args, const KernelSetup& k) {
  auto file = args.get("options");
  auto preset = args.get("preset");
  if (int(file.has_value()) + int(preset.has_value()) + int(args.has("best")) > 1) {
    std::cerr << "error: give one of --options, --preset and --best\n";
    return kUserError;
  }
  if (args.has("best")) {
    // The run's thread count where it has one (run --threads), else every core, as a run uses.
    int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    if (auto t = args.get("threads")) threads = std::max(1, std::atoi(t->c_str()));
    // Records timed as this run will be timed first (run --repeat --cold).
    auto best = tuner::best_options(cache_path_from_args(args), k, threads, args.has("cold"));
    if (!best) {
      std::cerr << "error: " << best.error() << "\n";
      return kUserError;
    }
    std::cerr << "note: " << best->note << "\n";
    return best->options;
  }
  OptionsChoice choice;
  choice.preset = preset.value_or("default");
  // Without --options or --preset, the options saved above the def (the IDE writes them).
  if (!file && !preset) {
    OptionsHeader header = options_header(k.checked->file.text(), k.def->ast->range.begin);
    if (header.found) {
      (header.value.rfind('{', 0) == 0 ? choice.json : choice.preset) = header.value;
      auto o = kernel_options(*k.def, choice, &k.shapes);
      if (!o) {
        std::cerr << "error: " << k.checked->file.name() << ":" << header.line << ": saved options: " << o.error() << "\n";
        return kUserError;
      }
      std::cerr << "note: options from " << k.checked->file.name() << ":" << header.line << "\n";
      return *o;
    }
  }
  if (file) return options_from_file(*file);
  auto o = kernel_options(*k.def, choice, &k.shapes);
  if (!o) {
    std::cerr << "error: " << o.error() << "\n";
    return kUserError;
  }
  return *o;
}

std::variant<MappingOptions, int> options_from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "error: cannot read options file '" << path << "'\n";
    return kUserError;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto o = mapping_options_from_json(text.str());  // an empty file is a JSON error, not "no options"
  if (!o) {
    std::cerr << "error: " << path << ": " << o.error() << "\n";
    return kUserError;
  }
  return *o;
}

}  // namespace tcs::cli
