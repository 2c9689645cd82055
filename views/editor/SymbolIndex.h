#pragma once
// What each word of a comprehension is, from the front end's own tokens and checked
// defs: the lexer colours tensors, size parameters and index variables apart, the hover
// explains a name, completion offers the names in scope. Plain C++ (no Qt), byte ranges.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "lang/Token.h"

namespace tcs {

enum class WordClass { Keyword, Type, Builtin, Tensor, SizeParam, Index, Identifier };

// One completion: what the name is and its type or signature, for the list's icon and tip.
struct Completion {
  WordClass kind = WordClass::Identifier;  // Index, Tensor, SizeParam or Builtin
  std::string name, detail;                // detail: "input A: float32 (M, K)", "exp(x1)"
};

struct ClassifiedToken {
  TokenKind kind = TokenKind::End;
  SourceRange range;
  WordClass word = WordClass::Identifier;  // identifiers and keywords only
  int def = -1;   // the def around it (CheckedFile::defs index)
  int stmt = -1;  // the statement around it (SemaDef::stmts index)
};

class SymbolIndex {
 public:
  // Lexes and checks `text` (the front end takes well under a millisecond per kernel).
  explicit SymbolIndex(std::string text);
  explicit SymbolIndex(std::shared_ptr<const CheckedFile> checked);

  const CheckedFile& checked() const { return *checked_; }
  const std::vector<ClassifiedToken>& tokens() const { return tokens_; }
  // Comments as byte ranges (the lexer drops them; the editor colours them).
  const std::vector<SourceRange>& comments() const { return comments_; }

  // The token covering byte `offset`, if any.
  const ClassifiedToken* token_at(uint32_t offset) const;
  // The def and statement around byte `offset` (-1 when none).
  int def_at(uint32_t offset) const;
  int stmt_at(int def, uint32_t offset) const;

  // A one-line explanation of the word at `offset`: a tensor's role, type and shape
  // ("input A: float32 (M, K) = (64, 128)"), an index's range, a size's value, a
  // builtin's arity. `shapes` (of the def at `offset`) adds numbers when known.
  std::string describe(uint32_t offset, const DefShapes* shapes, int shapes_def) const;

  // Completions for `prefix` typed at `offset`, best first: the statement's own indices and
  // tensors, the def's other tensors, its sizes, then builtins. Common builtins always
  // show; the long tail of rarer math functions only once two letters are typed.
  std::vector<Completion> completions(uint32_t offset, std::string_view prefix = {}) const;

 private:
  void classify();
  std::string tensor_text(const SemaDef& def, int tensor, const DefShapes* shapes) const;
  std::string index_text(const SemaDef& def, int stmt, const std::string& name, const DefShapes* shapes) const;

  std::shared_ptr<const CheckedFile> checked_;
  std::vector<ClassifiedToken> tokens_;
  std::vector<SourceRange> comments_;
};

}  // namespace tcs
