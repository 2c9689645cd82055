#include "views/theme/ThemedLexer.h"

#include <QFontDatabase>

#include "views/theme/Theme.h"

namespace tcs {

QColor ThemedLexer::defaultPaper(int) const { return palette(dark_).paper; }

void ThemedLexer::set_dark(bool dark) {
  dark_ = dark;
  for (int s = 0; s < style_count_; ++s) {
    setColor(defaultColor(s), s);
    setPaper(defaultPaper(s), s);
  }
  setDefaultPaper(defaultPaper(0));
  setDefaultColor(defaultColor(0));
}

QFont ThemedLexer::code_font(bool bold, bool italic) {
  QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  f.setBold(bold);
  f.setItalic(italic);
  return f;
}

}  // namespace tcs
