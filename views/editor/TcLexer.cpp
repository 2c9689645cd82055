#include "views/editor/TcLexer.h"

#include <Qsci/qsciscintilla.h>


#include "views/theme/Theme.h"

namespace tcs {

namespace {

TcLexer::Style style_of(const ClassifiedToken& t) {
  switch (t.kind) {
    case TokenKind::Integer: case TokenKind::Float: return TcLexer::Number;
    case TokenKind::Invalid: return TcLexer::Invalid;
    case TokenKind::PlusEq: case TokenKind::StarEq: case TokenKind::MinEq: case TokenKind::MaxEq:
    case TokenKind::PlusEqBang: case TokenKind::StarEqBang: case TokenKind::MinEqBang: case TokenKind::MaxEqBang:
      return TcLexer::ReductionOp;
    case TokenKind::Identifier: case TokenKind::KwDef: case TokenKind::KwWhere: case TokenKind::KwIn:
    case TokenKind::KwExists: case TokenKind::KwMin: case TokenKind::KwMax: case TokenKind::KwType:
      switch (t.word) {
        case WordClass::Keyword: return TcLexer::Keyword;
        case WordClass::Type: return TcLexer::Type;
        case WordClass::Builtin: return TcLexer::Builtin;
        case WordClass::Tensor: return TcLexer::Tensor;
        case WordClass::SizeParam: return TcLexer::SizeParam;
        case WordClass::Index: return TcLexer::Index;
        case WordClass::Identifier: return TcLexer::Default;
      }
      return TcLexer::Default;
    default: return TcLexer::Operator;
  }
}

}  // namespace

TcLexer::TcLexer(QObject* parent) : ThemedLexer(StyleCount, parent) { index_ = std::make_unique<SymbolIndex>(std::string()); }

QString TcLexer::description(int style) const {
  static const char* names[] = {"Default", "Comment", "Keyword", "Type", "Builtin", "Tensor", "Size parameter",
                                "Index variable", "Number", "Reduction operator", "Operator", "Invalid"};
  return style >= 0 && style < StyleCount ? QString::fromLatin1(names[style]) : QString();
}

QColor TcLexer::defaultColor(int style) const {
  const Palette& p = tcs::palette(dark());
  switch (Style(style)) {
    case Comment: return p.comment;
    case Keyword: return p.keyword;
    case Type: return p.type;
    case Builtin: return p.builtin;
    case Tensor: return p.tensor;
    case SizeParam: return p.size_param;
    case Index: return p.index;
    case Number: return p.number;
    case ReductionOp: return p.reduction;
    case Operator: return p.op;
    case Invalid: return p.invalid;
    default: return p.text;
  }
}

QFont TcLexer::defaultFont(int style) const { return code_font(style == Keyword || style == ReductionOp || style == Tensor, style == Comment); }

void TcLexer::refresh(const std::string& text) {
  if (text == text_ && index_) return;
  text_ = text;
  index_ = std::make_unique<SymbolIndex>(text);
}

const SymbolIndex& TcLexer::index() {
  if (editor()) refresh(editor()->text().toStdString());
  return *index_;
}

// Styles the whole document each time: kernels are short, and a word's colour depends on
// declarations anywhere in its def, so partial restyling would be wrong anyway.
void TcLexer::styleText(int, int) {
  QsciScintilla* ed = editor();
  if (!ed) return;
  long length = ed->SendScintilla(QsciScintilla::SCI_GETLENGTH);
  refresh(ed->text().toStdString());
  if (long(text_.size()) != length) return;  // mid-edit; Scintilla asks again

  // Runs of one style over the bytes: default, then comments and tokens on top.
  std::vector<uint8_t> styles(text_.size(), Default);
  for (const SourceRange& c : index_->comments())
    std::fill(styles.begin() + c.begin, styles.begin() + c.end, uint8_t(Comment));
  for (const ClassifiedToken& t : index_->tokens())
    std::fill(styles.begin() + t.range.begin, styles.begin() + t.range.end, uint8_t(style_of(t)));
  startStyling(0);
  size_t run = 0;
  for (size_t i = 1; i <= styles.size(); ++i) {
    if (i < styles.size() && styles[i] == styles[run]) continue;
    setStyling(int(i - run), styles[run]);
    run = i;
  }

  // Folding: one level per brace depth, a header where a line opens a deeper level.
  int lines = ed->lines();
  std::vector<int> depth_at(size_t(lines) + 1, 0);
  int depth = 0, line = 0;
  for (const ClassifiedToken& t : index_->tokens()) {
    int tl = int(ed->SendScintilla(QsciScintilla::SCI_LINEFROMPOSITION, long(t.range.begin)));
    while (line < tl) depth_at[size_t(++line)] = depth;
    if (t.kind == TokenKind::LBrace) ++depth;
    if (t.kind == TokenKind::RBrace && depth > 0) --depth;
  }
  while (line < lines) depth_at[size_t(++line)] = depth;
  for (int l = 0; l < lines; ++l) {
    int level = QsciScintilla::SC_FOLDLEVELBASE + depth_at[size_t(l)];
    if (depth_at[size_t(l) + 1] > depth_at[size_t(l)]) level |= QsciScintilla::SC_FOLDLEVELHEADERFLAG;
    ed->SendScintilla(QsciScintilla::SCI_SETFOLDLEVEL, l, level);
  }
}

}  // namespace tcs
