#include "views/theme/ThemedLexer.h"

#include <QFontDatabase>

#include "views/theme/Theme.h"

namespace tcs {

QColor ThemedLexer::defaultPaper(int) const { return palette(dark_).paper; }

void ThemedLexer::set_faded(bool faded) {
  if (faded != faded_) {
    faded_ = faded;
    set_dark(dark_);
  }
}

void ThemedLexer::set_dark(bool dark) {
  dark_ = dark;
  QColor paper = defaultPaper(0);
  auto fade = [&](QColor c) {
    if (!faded_) return c;
    return QColor((c.red() + paper.red() * 2) / 3, (c.green() + paper.green() * 2) / 3, (c.blue() + paper.blue() * 2) / 3);
  };
  for (int s = 0; s < style_count_; ++s) {
    setColor(fade(defaultColor(s)), s);
    setPaper(defaultPaper(s), s);
  }
  setDefaultPaper(defaultPaper(0));
  setDefaultColor(fade(defaultColor(0)));
}

QFont ThemedLexer::code_font(bool bold, bool italic) {
  QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  f.setBold(bold);
  f.setItalic(italic);
  return f;
}

}  // namespace tcs
