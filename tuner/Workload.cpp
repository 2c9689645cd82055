#include "tuner/Workload.h"

#include <map>

#include "Compiler.h"
#include "lang/Builtins.h"
#include "lang/Lexer.h"
#include "support/StableHash.h"

namespace tcs::tuner {

namespace {

// The def's tokens with every name that is not a builtin replaced by "v<k>", k its order
// of first appearance. Renaming is consistent, so two defs get the same text exactly
// when one is the other with names changed.
std::string canonical_tokens(const CheckedFile& file, const SemaDef& def, std::map<std::string, std::string>& renamed) {
  Diagnostics ignored;
  std::vector<Token> tokens = lex(file.file, ignored);
  SourceRange range = def.ast->range;
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == TokenKind::End || t.range.begin < range.begin || t.range.end > range.end) continue;
    std::string text(t.text);
    bool call = i + 1 < tokens.size() && tokens[i + 1].kind == TokenKind::LParen;
    if (t.kind == TokenKind::Identifier && !(call && builtin_find(t.text))) {
      auto [it, added] = renamed.emplace(text, "v" + std::to_string(renamed.size()));
      text = it->second;
    }
    if (!out.empty()) out += ' ';
    out += text;
  }
  return out;
}

std::string dims(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

Workload workload_of(const KernelSetup& k) {
  const SemaDef& def = *k.def;
  std::map<std::string, std::string> renamed;
  Workload w;
  w.structure = canonical_tokens(*k.checked, def, renamed);
  // Sizes in canonical names, sorted by them, so the order of the file's names is moot.
  std::map<std::string, int64_t> sizes;
  for (const std::string& p : def.size_params) {
    auto v = k.shapes.sizes.find(p);
    if (v == k.shapes.sizes.end()) continue;
    auto r = renamed.find(p);
    sizes[r != renamed.end() ? r->second : p] = v->second;
    w.sizes += (w.sizes.empty() ? "" : " ") + p + "=" + std::to_string(v->second);
  }
  w.canonical = w.structure + " |";
  for (const auto& [name, v] : sizes) w.canonical += " " + name + "=" + std::to_string(v);
  w.key = stable_hash_hex(w.canonical);
  w.entry = def.name;
  const std::string& text = k.checked->file.text();
  w.source = text.substr(def.ast->range.begin, def.ast->range.end - def.ast->range.begin);
  std::string ins, outs;
  for (size_t t = 0; t < def.tensors.size(); ++t) {
    const SemaTensor& T = def.tensors[t];
    if (T.role == TensorRole::Temporary) continue;
    std::string& list = T.role == TensorRole::Input ? ins : outs;
    list += (list.empty() ? "" : ", ") + T.name + " " + std::string(scalar_type_name(T.type)) + dims(k.shapes.tensors[t].extent);
  }
  w.signature = ins + " -> " + outs;
  w.flops = kernel_flops(def, k.shapes);
  return w;
}

TargetIdentity tuning_target(const TargetIdentity& machine, int threads, bool cold) {
  TargetIdentity t = machine;
  t.description += ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  t.fingerprint += ";threads=" + std::to_string(threads);
  if (cold) t.description += ", cold caches", t.fingerprint += ";caches=cold";
  return t;
}

}  // namespace tcs::tuner
