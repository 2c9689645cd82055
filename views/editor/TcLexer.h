#pragma once
// Syntax colouring for comprehensions. It styles from the front end's own tokens and
// checked defs (SymbolIndex), so tensors, size parameters and index variables get their
// own colours exactly where the compiler sees them, and sets one fold level per `def`.
#include "views/theme/ThemedLexer.h"

#include <memory>
#include <string>

#include "views/editor/SymbolIndex.h"

namespace tcs {

class TcLexer : public ThemedLexer {
  Q_OBJECT
 public:
  enum Style {
    Default = 0, Comment, Keyword, Type, Builtin, Tensor, SizeParam, Index, Number, ReductionOp, Operator,
    Invalid, StyleCount
  };

  explicit TcLexer(QObject* parent = nullptr);

  const char* language() const override { return "TensorComprehension"; }
  const char* lexer() const override { return nullptr; }
  QString description(int style) const override;
  QColor defaultColor(int style) const override;
  QFont defaultFont(int style) const override;
  void styleText(int start, int end) override;

  // The index of the text last styled (re-built when the text changes).
  const SymbolIndex& index();

 private:
  void refresh(const std::string& text);

  std::string text_;
  std::unique_ptr<SymbolIndex> index_;
};

}  // namespace tcs
