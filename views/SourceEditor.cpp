#include "SourceEditor.h"

#include <QFontDatabase>

namespace tcs {

SourceEditor::SourceEditor(QWidget* parent) : QsciScintilla(parent) {
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  setFont(mono);
  setMarginsFont(mono);
  setUtf8(true);
  setMarginType(0, NumberMargin);
  setMarginWidth(0, QStringLiteral("0000"));
  setMarginLineNumbers(0, true);
  setCaretLineVisible(true);
  setCaretLineBackgroundColor(QColor(0xf4, 0xf6, 0xfa));
  setBraceMatching(SloppyBraceMatch);
  setIndentationsUseTabs(false);
  setTabWidth(4);
  indicatorDefine(SquiggleIndicator, kErrorIndicator);
  setIndicatorForegroundColor(QColor(0xd0, 0x20, 0x20), kErrorIndicator);
  indicatorDefine(SquiggleIndicator, kWarningIndicator);
  setIndicatorForegroundColor(QColor(0xe0, 0x90, 0x10), kWarningIndicator);
}

void SourceEditor::show_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  long length = SendScintilla(SCI_GETLENGTH);
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
  }
}

void SourceEditor::select_bytes(uint32_t begin, uint32_t end) {
  SendScintilla(SCI_SETSEL, long(begin), long(end));
  SendScintilla(SCI_SCROLLCARET);
  setFocus();
}

}  // namespace tcs
