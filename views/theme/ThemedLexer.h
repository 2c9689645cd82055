#pragma once
// What the comprehension lexer and the generated-code lexer share: a light or dark
// palette behind every style and the monospace font. Subclasses give colours per style.
#include <Qsci/qscilexercustom.h>

namespace tcs {

class ThemedLexer : public QsciLexerCustom {
 public:
  ThemedLexer(int style_count, QObject* parent) : QsciLexerCustom(parent), style_count_(style_count) {}

  QColor defaultPaper(int style) const override;
  // Re-applies every style's colours from the chosen palette.
  void set_dark(bool dark);
  // Faded: every colour drawn halfway to the paper, for text that is shown but out of date.
  void set_faded(bool faded);

 protected:
  bool dark() const { return dark_; }
  static QFont code_font(bool bold, bool italic);

 private:
  int style_count_;
  bool dark_ = false, faded_ = false;
};

}  // namespace tcs
