// A CompileRequest as JSON, so it can cross a process boundary (the tuner's worker, the
// exporter, a saved session).
#include <nlohmann/json.hpp>

#include "Compiler.h"

namespace tcs {

using json = nlohmann::ordered_json;

std::string compile_request_to_json(const CompileRequest& r) {
  json j;
  j["file_name"] = r.file_name;
  j["source"] = r.source;
  j["entry"] = r.entry;
  j["sizes"] = json::object();
  for (const auto& [name, v] : r.sizes) j["sizes"][name] = v;
  j["preset"] = r.options.preset;
  j["options"] = r.options.json.empty() ? json(nullptr) : json::parse(r.options.json, nullptr, false);
  j["target"] = r.target;
  j["emit"] = r.text_kinds;
  j["build_kernel"] = r.build_kernel;
  j["symbolic_sizes"] = r.symbolic_sizes;
  return j.dump();
}

Expected<CompileRequest> compile_request_from_json(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  auto bad = [](const std::string& what) { return Error{ErrorKind::InputFile, "compile request: " + what}; };
  if (j.is_discarded()) return bad("not valid JSON");
  if (!j.is_object()) return bad("must be a JSON object");
  CompileRequest r;
  auto string_field = [&](const char* key, std::string& out) -> bool {
    if (!j.contains(key)) return true;
    if (!j[key].is_string()) return false;
    out = j[key].get<std::string>();
    return true;
  };
  for (auto [key, out] : {std::pair{"file_name", &r.file_name}, {"source", &r.source}, {"entry", &r.entry},
                          {"preset", &r.options.preset}, {"target", &r.target}})
    if (!string_field(key, *out)) return bad(std::string("'") + key + "' must be a string");
  if (j.contains("sizes")) {
    if (!j["sizes"].is_object()) return bad("'sizes' must be an object of NAME: INT");
    for (const auto& [name, v] : j["sizes"].items()) {
      if (!v.is_number_integer()) return bad("sizes." + name + " must be an integer");
      r.sizes[name] = v.get<int64_t>();
    }
  }
  if (j.contains("options") && !j["options"].is_null()) {
    if (!j["options"].is_object()) return bad("'options' must be an object (mapping options) or null");
    r.options.json = j["options"].dump(2);
  }
  if (j.contains("emit")) {
    if (!j["emit"].is_array()) return bad("'emit' must be an array of text kinds");
    r.text_kinds.clear();
    for (const json& k : j["emit"]) {
      if (!k.is_string()) return bad("'emit' must hold strings");
      r.text_kinds.push_back(k.get<std::string>());
    }
  }
  for (auto [key, out] : {std::pair{"build_kernel", &r.build_kernel}, {"symbolic_sizes", &r.symbolic_sizes}})
    if (j.contains(key)) {
      if (!j[key].is_boolean()) return bad(std::string("'") + key + "' must be true or false");
      *out = j[key].get<bool>();
    }
  return r;
}

}  // namespace tcs
