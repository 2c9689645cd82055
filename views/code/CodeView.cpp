#include "views/code/CodeView.h"

#include <QFontDatabase>
#include <QLabel>
#include <algorithm>

#include "views/theme/Theme.h"

namespace tcs {

CodeView::CodeView(CodeLanguage language, QWidget* parent) : QsciScintilla(parent), lang_(language) {
  lexer_ = new CodeLexer(language, this);
  setLexer(lexer_);
  setReadOnly(true);
  setUtf8(true);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  setMarginsFont(mono);
  setMarginType(0, NumberMargin);
  setMarginWidth(0, QStringLiteral("00000"));
  setMarginLineNumbers(0, true);
  setCaretLineVisible(true);
  setWrapMode(WrapNone);
  markerDefine(Background, kLinkedMarker);
  banner_ = new QLabel(viewport());
  banner_->setObjectName(QStringLiteral("staleBanner"));
  banner_->setWordWrap(true);
  banner_->setMargin(4);
  banner_->hide();
  set_dark(false);
  connect(this, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
    if (filling_) return;
    LineOrigin o = origin_of_line(line);
    if (o.loop_id >= 0 || o.stmt >= 0) emit line_selected(o);
  });
}

void CodeView::set_dark(bool dark) {
  const Palette& p = tcs::palette(dark);
  lexer_->set_dark(dark);
  setMarginsBackgroundColor(p.margin);
  setMarginsForegroundColor(p.margin_text);
  setCaretLineBackgroundColor(p.caret_line);
  setCaretForegroundColor(p.text);
  setSelectionBackgroundColor(p.selection);
  setMarkerBackgroundColor(p.linked_line, kLinkedMarker);
  banner_->setStyleSheet(QStringLiteral("background: %1; color: %2; border: 1px solid %3;")
                             .arg(p.caret_line.name(), p.text.name(), p.margin_text.name()));
}

void CodeView::set_stale(const QString& reason) {
  stale_reason_ = reason;
  lexer_->set_faded(!reason.isEmpty());
  banner_->setText(tr("Stale: %1").arg(reason));
  banner_->setVisible(!reason.isEmpty());
  place_banner();
}

// The banner sits in the top right corner of the text, over at most half its width.
void CodeView::place_banner() {
  int width = std::min(std::max(160, viewport()->width() / 2), viewport()->width());
  int inner = width - 2 * banner_->margin() - 2;  // the border is one pixel each side
  QRect text = banner_->fontMetrics().boundingRect(QRect(0, 0, inner, 10000), Qt::TextWordWrap, banner_->text());
  banner_->setFixedSize(width, text.height() + 2 * banner_->margin() + 2);
  banner_->move(viewport()->width() - banner_->width() - 4, 4);
}

void CodeView::resizeEvent(QResizeEvent* event) {
  QsciScintilla::resizeEvent(event);
  place_banner();
}

void CodeView::set_code(const GeneratedText& code) {
  // A job delivers its C and schedule twice (before and after the LLVM phases).
  auto same = [](const LineOrigin& a, const LineOrigin& b) { return a.loop_id == b.loop_id && a.stmt == b.stmt; };
  if (!shown_.empty() && code.text == code_.text &&
      std::equal(code.lines.begin(), code.lines.end(), code_.lines.begin(), code_.lines.end(), same)) {
    set_stale({});
    return;
  }
  code_ = code;
  refill();
  set_stale({});
}

void CodeView::set_placeholder(const QString& message) {
  code_ = GeneratedText{};
  filling_ = true;
  shown_.clear();
  setText(message);
  filling_ = false;
  set_stale({});
}

void CodeView::set_hide_comments(bool hide) {
  hide_comments_ = hide;
  refill();
}

void CodeView::set_hide_directives(bool hide) {
  hide_directives_ = hide;
  refill();
}

void CodeView::refill() {
  QString out;
  shown_.clear();
  size_t line = 0, pos = 0;
  const std::string& t = code_.text;
  while (pos < t.size()) {
    size_t end = t.find('\n', pos);
    size_t next = end == std::string::npos ? t.size() : end + 1;
    QString text = QString::fromUtf8(t.data() + pos, qsizetype(next - pos));
    LineOrigin o = line < code_.lines.size() ? code_.lines[line] : LineOrigin{};
    bool hide = (hide_comments_ && code_line_is_comment(lang_, text)) ||
                (hide_directives_ && code_line_is_directive(lang_, text));
    if (!hide) {
      out += text;
      shown_.push_back(o);
    }
    pos = next;
    ++line;
  }
  // Keep the view where it was: regenerated code usually changes a few lines only.
  int first = firstVisibleLine();
  filling_ = true;
  setText(out);
  setFirstVisibleLine(first);
  filling_ = false;
}

int CodeView::mark_lines(const std::function<bool(const LineOrigin&)>& pred) {
  markerDeleteAll(kLinkedMarker);
  int count = 0, first = -1;
  for (size_t l = 0; l < shown_.size(); ++l) {
    if (!pred(shown_[l])) continue;
    markerAdd(int(l), kLinkedMarker);
    if (first < 0) first = int(l);
    ++count;
  }
  if (first >= 0) ensureLineVisible(first);
  return count;
}

std::vector<int> CodeView::marked_lines() const {
  std::vector<int> out;
  unsigned mask = 1u << kLinkedMarker;
  for (int l = int(markerFindNext(0, mask)); l >= 0;
       l = int(markerFindNext(l + 1, mask)))
    out.push_back(l);
  return out;
}

LineOrigin CodeView::origin_of_line(int line) const {
  return line >= 0 && line < int(shown_.size()) ? shown_[size_t(line)] : LineOrigin{};
}

}  // namespace tcs
