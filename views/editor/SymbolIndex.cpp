#include "views/editor/SymbolIndex.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "lang/Builtins.h"
#include "lang/Lexer.h"

namespace tcs {

namespace {

bool contains(SourceRange r, uint32_t offset) { return offset >= r.begin && offset < r.end; }

std::string join_shape(const std::vector<std::string>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + ")";
}

std::string_view role_name(TensorRole r) {
  switch (r) {
    case TensorRole::Input: return "input";
    case TensorRole::Output: return "output";
    case TensorRole::Temporary: return "temporary";
  }
  return "";
}

std::string builtin_text(const Builtin& b) {
  std::string args;
  for (int i = 0; i < b.arity; ++i) args += (i ? ", x" : "x") + std::to_string(i + 1);
  return "builtin " + std::string(b.name) + "(" + args + "), computed in the argument type";
}

// Builtins most kernels use; the rest of the math library shows once two letters are typed.
bool common_builtin(std::string_view name) {
  static const std::set<std::string_view> common = {"exp", "log", "sqrt", "rsqrt", "tanh", "erf", "fmax",
                                                    "fmin", "fabs", "pow", "sin", "cos", "floor", "ceil"};
  return common.count(name) > 0;
}

bool starts_with_nocase(std::string_view word, std::string_view prefix) {
  if (prefix.size() > word.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(word[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) return false;
  return true;
}

}  // namespace

SymbolIndex::SymbolIndex(std::string text) : SymbolIndex(std::shared_ptr<const CheckedFile>(check_source("", std::move(text)))) {}

SymbolIndex::SymbolIndex(std::shared_ptr<const CheckedFile> checked) : checked_(std::move(checked)) { classify(); }

void SymbolIndex::classify() {
  Diagnostics ignored;  // the checked file already holds the lexer's diagnostics
  std::vector<Token> tokens = lex(checked_->file, ignored);
  const std::string_view text = checked_->file.text();
  // Comments: from '#' to the end of the line, wherever no token covers the '#'.
  size_t next = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '#') continue;
    while (next < tokens.size() && tokens[next].range.end <= i) ++next;
    if (next < tokens.size() && tokens[next].range.begin <= i && tokens[next].kind != TokenKind::End) continue;
    size_t end = text.find('\n', i);
    if (end == std::string_view::npos) end = text.size();
    comments_.push_back({uint32_t(i), uint32_t(end)});
    i = end;
  }
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::End) break;
    ClassifiedToken c{t.kind, t.range};
    c.def = def_at(t.range.begin);
    c.stmt = stmt_at(c.def, t.range.begin);
    switch (t.kind) {
      case TokenKind::KwDef: case TokenKind::KwWhere: case TokenKind::KwIn: case TokenKind::KwExists:
      case TokenKind::KwMin: case TokenKind::KwMax:
        c.word = WordClass::Keyword;
        break;
      case TokenKind::KwType: c.word = WordClass::Type; break;
      case TokenKind::Identifier: {
        c.word = WordClass::Identifier;
        const SemaDef* def = c.def >= 0 ? &checked_->defs[size_t(c.def)] : nullptr;
        bool is_index = false;
        if (def && c.stmt >= 0)
          for (const SemaIndex& ix : def->stmts[size_t(c.stmt)].indices) is_index |= ix.name == t.text;
        if (is_index) c.word = WordClass::Index;
        else if (def && def->find_tensor(t.text) >= 0) c.word = WordClass::Tensor;
        else if (def && def->find_size_param(t.text) >= 0) c.word = WordClass::SizeParam;
        else if (builtin_find(t.text)) c.word = WordClass::Builtin;
        break;
      }
      default: break;
    }
    tokens_.push_back(c);
  }
}

const ClassifiedToken* SymbolIndex::token_at(uint32_t offset) const {
  auto it = std::upper_bound(tokens_.begin(), tokens_.end(), offset,
                             [](uint32_t o, const ClassifiedToken& t) { return o < t.range.end; });
  return it != tokens_.end() && contains(it->range, offset) ? &*it : nullptr;
}

int SymbolIndex::def_at(uint32_t offset) const {
  for (size_t d = 0; d < checked_->defs.size(); ++d)
    if (contains(checked_->defs[d].ast->range, offset)) return int(d);
  return -1;
}

int SymbolIndex::stmt_at(int def, uint32_t offset) const {
  if (def < 0) return -1;
  const SemaDef& d = checked_->defs[size_t(def)];
  for (size_t s = 0; s < d.stmts.size(); ++s)
    if (d.stmts[s].ast && contains(d.stmts[s].ast->range, offset)) return int(s);
  return -1;
}

std::string SymbolIndex::describe(uint32_t offset, const DefShapes* shapes, int shapes_def) const {
  const ClassifiedToken* t = token_at(offset);
  if (!t) return {};
  std::string word(checked_->file.text().substr(t->range.begin, t->range.end - t->range.begin));
  if (t->word == WordClass::Builtin) {
    return builtin_text(*builtin_find(word));
  }
  if (t->def < 0) return {};
  const SemaDef& def = checked_->defs[size_t(t->def)];
  if (t->def != shapes_def) shapes = nullptr;
  if (t->word == WordClass::Tensor) return tensor_text(def, def.find_tensor(word), shapes);
  if (t->word == WordClass::SizeParam) {
    std::string s = "size " + word;
    if (shapes)
      if (auto it = shapes->sizes.find(word); it != shapes->sizes.end()) s += " = " + std::to_string(it->second);
    return s;
  }
  if (t->word == WordClass::Index && t->stmt >= 0) return index_text(def, t->stmt, word, shapes);
  return {};
}

std::string SymbolIndex::tensor_text(const SemaDef& def, int ti, const DefShapes* shapes) const {
  const SemaTensor& T = def.tensors[size_t(ti)];
  std::string s = std::string(role_name(T.role)) + " " + T.name + ": " +
                  (T.type_known ? std::string(scalar_type_name(T.type)) : std::string("type unknown"));
  if (!T.shape_known) return s + ", shape unknown";
  if (T.rank() == 0) return s + ", a scalar";
  std::vector<std::string> sym, num;
  for (int i = 0; i < T.rank(); ++i) {
    SymExpr extent = T.hi[size_t(i)] - T.lo[size_t(i)] + SymExpr(1);
    sym.push_back(extent.str());
    if (shapes) num.push_back(std::to_string(shapes->tensors[size_t(ti)].extent[size_t(i)]));
  }
  s += " " + join_shape(sym);
  if (shapes && join_shape(num) != join_shape(sym)) s += " = " + join_shape(num);
  return s;
}

std::string SymbolIndex::index_text(const SemaDef& def, int stmt, const std::string& word, const DefShapes* shapes) const {
  const SemaStmt& st = def.stmts[size_t(stmt)];
  for (const SemaIndex& ix : st.indices) {
    if (ix.name != word) continue;
    std::string s = std::string(ix.on_lhs ? "index " : "reduction index ") + word;
    if (ix.solved) s += " in " + ix.lo.str() + " .. " + ix.hi.str();
    else s += ": range not inferred";
    if (shapes && stmt < int(shapes->stmts.size()))
      for (const IndexRange& r : shapes->stmts[size_t(stmt)])
        if (r.name == word) s += " = " + std::to_string(r.lo) + " .. " + std::to_string(r.hi);
    return s;
  }
  return {};
}

std::vector<Completion> SymbolIndex::completions(uint32_t offset, std::string_view prefix) const {
  std::vector<Completion> out;
  std::set<std::string> seen;
  auto add = [&](WordClass kind, const std::string& name, const std::string& detail) {
    if (name != prefix && starts_with_nocase(name, prefix) && seen.insert(name).second) out.push_back({kind, name, detail});
  };
  int d = def_at(offset);
  if (d >= 0) {
    const SemaDef& def = checked_->defs[size_t(d)];
    if (int s = stmt_at(d, offset); s >= 0) {
      for (const SemaIndex& ix : def.stmts[size_t(s)].indices) add(WordClass::Index, ix.name, index_text(def, s, ix.name, nullptr));
      for (const ClassifiedToken& t : tokens_)  // the tensors this statement names
        if (t.def == d && t.stmt == s && t.word == WordClass::Tensor) {
          std::string name(checked_->file.text().substr(t.range.begin, t.range.end - t.range.begin));
          if (int ti = def.find_tensor(name); ti >= 0) add(WordClass::Tensor, name, tensor_text(def, ti, nullptr));
        }
    }
    for (size_t ti = 0; ti < def.tensors.size(); ++ti) add(WordClass::Tensor, def.tensors[ti].name, tensor_text(def, int(ti), nullptr));
    for (const std::string& p : def.size_params) add(WordClass::SizeParam, p, "size " + p);
  }
  for (const Builtin& b : builtins())
    if (common_builtin(b.name)) add(WordClass::Builtin, std::string(b.name), builtin_text(b));
  if (prefix.size() >= 2)
    for (const Builtin& b : builtins()) add(WordClass::Builtin, std::string(b.name), builtin_text(b));
  return out;
}

}  // namespace tcs
