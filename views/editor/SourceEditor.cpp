#include "views/editor/SourceEditor.h"

#include <QFontDatabase>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QToolTip>

#include "views/editor/SymbolIndex.h"
#include "views/editor/TcLexer.h"
#include "views/theme/Theme.h"
#include "lang/Builtins.h"

namespace tcs {

SourceEditor::SourceEditor(QWidget* parent) : QsciScintilla(parent) {
  setUtf8(true);
  lexer_ = new TcLexer(this);
  setLexer(lexer_);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  setMarginsFont(mono);
  setMarginType(0, NumberMargin);
  setMarginWidth(0, QStringLiteral("0000"));
  setMarginLineNumbers(0, true);
  setFolding(BoxedTreeFoldStyle, 2);
  setCaretLineVisible(true);
  setBraceMatching(SloppyBraceMatch);
  setIndentationsUseTabs(false);
  setTabWidth(4);
  setAutoIndent(true);
  setAutoCompletionSource(AcsNone);  // our own lists, from the checked program
  SendScintilla(SCI_AUTOCSETIGNORECASE, 1L);
  SendScintilla(SCI_AUTOCSETORDER, long(SC_ORDER_CUSTOM));  // our ranking, not the alphabet
  // A margin for error and warning markers beside the line numbers.
  setMarginType(1, SymbolMargin);
  setMarginWidth(1, 14);
  setMarginMarkerMask(1, (1 << kErrorMarker) | (1 << kWarningMarker));
  markerDefine(Circle, kErrorMarker);
  markerDefine(Circle, kWarningMarker);
  SendScintilla(SCI_SETMOUSEDWELLTIME, 400L);
  SendScintilla(SCI_CALLTIPSETPOSITION, 1L);  // tips above the line, clear of the completion list
  indicatorDefine(SquiggleIndicator, kErrorIndicator);
  indicatorDefine(SquiggleIndicator, kWarningIndicator);
  indicatorDefine(StraightBoxIndicator, kLinkedIndicator);
  SendScintilla(SCI_INDICSETALPHA, kLinkedIndicator, 90L);
  SendScintilla(SCI_INDICSETUNDER, kLinkedIndicator, 1L);
  set_dark(false);
  connect(this, &QsciScintillaBase::SCN_CHARADDED, this, &SourceEditor::char_added);
  connect(this, &QsciScintillaBase::SCN_DWELLSTART, this, &SourceEditor::dwell);
  connect(this, &QsciScintillaBase::SCN_AUTOCSELECTIONCHANGE, this,
          [this](const char* name, int, int) { completion_selected(name); });
  connect(this, &QsciScintillaBase::SCN_AUTOCCANCELLED, this, [] { QToolTip::hideText(); });
  connect(this, &QsciScintillaBase::SCN_AUTOCCOMPLETED, this, [] { QToolTip::hideText(); });
  connect(this, &QsciScintillaBase::SCN_DWELLEND, this, [] { QToolTip::hideText(); });
}

void SourceEditor::set_dark(bool dark) {
  const Palette& p = tcs::palette(dark);
  lexer_->set_dark(dark);
  setMarginsBackgroundColor(p.margin);
  setMarginsForegroundColor(p.margin_text);
  setFoldMarginColors(p.margin, p.margin);
  setCaretLineBackgroundColor(p.caret_line);
  setCaretForegroundColor(p.text);
  setSelectionBackgroundColor(p.selection);
  setMatchedBraceBackgroundColor(p.selection);
  setMatchedBraceForegroundColor(p.text);
  setIndicatorForegroundColor(p.invalid, kErrorIndicator);
  setIndicatorForegroundColor(QColor(0xe0, 0x90, 0x10), kWarningIndicator);
  setIndicatorForegroundColor(p.linked_statement, kLinkedIndicator);
  setMarkerBackgroundColor(p.invalid, kErrorMarker);
  setMarkerForegroundColor(p.invalid, kErrorMarker);
  setMarkerBackgroundColor(QColor(0xe0, 0x90, 0x10), kWarningMarker);
  setMarkerForegroundColor(QColor(0xe0, 0x90, 0x10), kWarningMarker);
  // Completion icons: a letter per kind in the colour the lexer gives that kind.
  const std::pair<WordClass, std::pair<QChar, QColor>> kinds[] = {{WordClass::Index, {'i', p.index}},
                                                                  {WordClass::Tensor, {'T', p.tensor}},
                                                                  {WordClass::SizeParam, {'S', p.size_param}},
                                                                  {WordClass::Builtin, {'f', p.builtin}}};
  for (const auto& [kind, look] : kinds) {
    QPixmap icon(14, 14);
    icon.fill(Qt::transparent);
    QPainter painter(&icon);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setBrush(look.second);
    painter.setPen(Qt::NoPen);
    painter.drawRoundedRect(QRectF(0.5, 0.5, 13, 13), 3, 3);
    painter.setPen(p.paper);
    QFont f = font();
    f.setPixelSize(10);
    f.setBold(true);
    painter.setFont(f);
    painter.drawText(icon.rect(), Qt::AlignCenter, QString(look.first));
    painter.end();
    registerImage(int(kind) + 1, icon);
  }
  recolor();
}

const SymbolIndex& SourceEditor::symbols() { return lexer_->index(); }

uint32_t SourceEditor::caret_offset() const { return uint32_t(SendScintilla(SCI_GETCURRENTPOS)); }

void SourceEditor::show_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  diagnostics_ = diagnostics;
  long length = SendScintilla(SCI_GETLENGTH);
  markerDeleteAll(kErrorMarker);
  markerDeleteAll(kWarningMarker);
  for (int ind : {kErrorIndicator, kWarningIndicator}) {
    SendScintilla(SCI_SETINDICATORCURRENT, ind);
    SendScintilla(SCI_INDICATORCLEARRANGE, 0, length);
  }
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == Severity::Note) continue;
    long begin = std::min<long>(d.range.begin, length);
    long width = std::max<long>(1, long(d.range.end) - long(d.range.begin));
    if (begin == length && begin > 0) --begin;  // errors at end of file: mark the last character
    SendScintilla(SCI_SETINDICATORCURRENT, d.severity == Severity::Error ? kErrorIndicator : kWarningIndicator);
    SendScintilla(SCI_INDICATORFILLRANGE, begin, std::min(width, length - begin));
    int line = int(SendScintilla(SCI_LINEFROMPOSITION, begin));
    markerAdd(line, d.severity == Severity::Error ? kErrorMarker : kWarningMarker);
  }
}

std::vector<int> SourceEditor::marked_lines(int marker) const {
  std::vector<int> out;
  for (int l = int(markerFindNext(0, 1u << marker)); l >= 0; l = int(markerFindNext(l + 1, 1u << marker))) out.push_back(l);
  return out;
}

void SourceEditor::show_linked(const std::vector<SourceRange>& ranges) {
  long length = SendScintilla(SCI_GETLENGTH);
  SendScintilla(SCI_SETINDICATORCURRENT, kLinkedIndicator);
  SendScintilla(SCI_INDICATORCLEARRANGE, 0, length);
  for (const SourceRange& r : ranges) {
    long begin = std::min<long>(r.begin, length), end = std::min<long>(r.end, length);
    if (end > begin) SendScintilla(SCI_INDICATORFILLRANGE, begin, end - begin);
  }
  if (!ranges.empty()) ensureLineVisible(int(SendScintilla(SCI_LINEFROMPOSITION, long(ranges.front().begin))));
}

void SourceEditor::set_shapes(int def, const DefShapes* shapes) {
  shapes_def_ = def;
  shapes_ = shapes;
}

void SourceEditor::select_bytes(uint32_t begin, uint32_t end) {
  SendScintilla(SCI_SETSEL, long(begin), long(end));
  SendScintilla(SCI_SCROLLCARET);
  setFocus();
}

QString SourceEditor::word_before_caret() const {
  long pos = SendScintilla(SCI_GETCURRENTPOS);
  long start = SendScintilla(SCI_WORDSTARTPOSITION, pos, 1L);
  QByteArray bytes(int(pos - start), '\0');
  if (pos > start) SendScintilla(SCI_GETTEXTRANGE, start, pos, bytes.data());
  return QString::fromUtf8(bytes);
}

std::vector<Completion> SourceEditor::completions_here() {
  std::vector<Completion> items = symbols().completions(caret_offset(), word_before_caret().toStdString());
  completion_details_.clear();
  for (const Completion& c : items) completion_details_[QString::fromStdString(c.name)] = QString::fromStdString(c.detail);
  return items;
}

QStringList SourceEditor::completion_words() {
  QStringList out;
  for (const Completion& c : completions_here()) out << QString::fromStdString(c.name);
  return out;
}

// The list shows each name with its kind's icon ("name?1"); the selected one's type or
// signature follows the selection in a tip beside the list.
void SourceEditor::show_completions() {
  const std::vector<Completion> items = completions_here();
  if (items.empty()) return;
  QStringList list;
  for (const Completion& c : items) list << QStringLiteral("%1?%2").arg(QString::fromStdString(c.name)).arg(int(c.kind) + 1);
  QByteArray bytes = list.join(' ').toUtf8();
  SendScintilla(SCI_AUTOCSHOW, long(word_before_caret().toUtf8().size()), bytes.constData());
  completion_selected(items.front().name.c_str());
}

void SourceEditor::completion_selected(const char* name) {
  auto it = completion_details_.find(QString::fromUtf8(name));
  completion_tip_ = it == completion_details_.end() ? QString() : it->second;
  // Beside the list (a Scintilla call tip would close it): at the selected row's right.
  QListWidget* list = nullptr;
  for (QListWidget* l : findChildren<QListWidget*>())
    if (l->isVisible()) list = l;
  if (!list || completion_tip_.isEmpty()) return;
  QRect row = list->visualItemRect(list->currentItem());
  QToolTip::showText(list->mapToGlobal(QPoint(list->width() + 4, row.top())), completion_tip_, list);
}

void SourceEditor::char_added(int ch) {
  if (ch == '(') {
    // A call tip for a builtin: its name and arity.
    long pos = SendScintilla(SCI_GETCURRENTPOS) - 1;
    long start = SendScintilla(SCI_WORDSTARTPOSITION, pos, 1L);
    QByteArray name(int(pos - start), '\0');
    if (pos > start) SendScintilla(SCI_GETTEXTRANGE, start, pos, name.data());
    if (const Builtin* b = builtin_find(name.toStdString())) {
      QString args;
      for (int i = 0; i < b->arity; ++i) args += QString(i ? ", x%1" : "x%1").arg(i + 1);
      QByteArray tip = QStringLiteral("%1(%2) — builtin, %3 argument(s), computed in the argument type")
                           .arg(QString::fromUtf8(name), args)
                           .arg(b->arity)
                           .toUtf8();
      SendScintilla(SCI_CALLTIPSHOW, pos, tip.constData());
    }
    return;
  }
  if (ch == ')') SendScintilla(SCI_CALLTIPCANCEL);
  if ((QChar(ch).isLetterOrNumber() || ch == '_') && word_before_caret().size() >= 2 &&
      !SendScintilla(SCI_AUTOCACTIVE))
    show_completions();
}

QString SourceEditor::hover_text(uint32_t offset) {
  QStringList parts;
  for (const Diagnostic& d : diagnostics_) {
    if (d.severity == Severity::Note) continue;
    uint32_t end = std::max(d.range.end, d.range.begin + 1);
    if (offset >= d.range.begin && offset < end)
      parts << (d.severity == Severity::Error ? tr("error: ") : tr("warning: ")) + QString::fromStdString(d.message);
  }
  std::string what = symbols().describe(offset, shapes_, shapes_def_);
  if (!what.empty()) parts << QString::fromStdString(what);
  return parts.join('\n');
}

void SourceEditor::dwell(int position, int x, int y) {
  if (position < 0) return;
  QString text = hover_text(uint32_t(position));
  if (!text.isEmpty()) QToolTip::showText(viewport()->mapToGlobal(QPoint(x, y + 10)), text, viewport());
}

// Adds "# " to every selected line, or removes it when every line already has it.
void SourceEditor::toggle_comment() {
  int l0, c0, l1, c1;
  getSelection(&l0, &c0, &l1, &c1);
  if (l0 < 0) {
    getCursorPosition(&l0, &c0);
    l1 = l0;
    c1 = c0;
  }
  if (l1 > l0 && c1 == 0) --l1;
  bool all = true;
  for (int l = l0; l <= l1; ++l) all &= text(l).trimmed().startsWith('#') || text(l).trimmed().isEmpty();
  beginUndoAction();
  for (int l = l0; l <= l1; ++l) {
    QString t = text(l);
    if (t.trimmed().isEmpty()) continue;
    int indent = int(t.indexOf(t.trimmed()));  // columns count characters, and indents are ASCII
    if (all) {
      int n = t.mid(indent).startsWith(QStringLiteral("# ")) ? 2 : 1;
      setSelection(l, indent, l, indent + n);
      removeSelectedText();
    } else {
      insertAt(QStringLiteral("# "), l, indent);
    }
  }
  endUndoAction();
}

}  // namespace tcs
