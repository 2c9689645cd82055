#include "views/theme/Theme.h"

#include <QApplication>
#include <QStyle>

namespace tcs {

namespace {

Palette make_light() {
  Palette p;
  p.dark = false;
  p.paper = QColor(0xff, 0xff, 0xff);
  p.text = QColor(0x1f, 0x23, 0x28);
  p.margin = QColor(0xf3, 0xf4, 0xf6);
  p.margin_text = QColor(0x80, 0x86, 0x8f);
  p.caret_line = QColor(0xf4, 0xf6, 0xfa);
  p.selection = QColor(0xc8, 0xdc, 0xf8);
  p.comment = QColor(0x6a, 0x73, 0x7d);
  p.keyword = QColor(0x8a, 0x1c, 0xb0);
  p.type = QColor(0x00, 0x6b, 0x8f);
  p.builtin = QColor(0x6f, 0x42, 0xc1);
  p.tensor = QColor(0x0b, 0x5c, 0xc4);
  p.size_param = QColor(0xb3, 0x5c, 0x00);
  p.index = QColor(0x1a, 0x7f, 0x37);
  p.number = QColor(0x09, 0x86, 0x58);
  p.op = QColor(0x40, 0x44, 0x4a);
  p.reduction = QColor(0xc4, 0x1a, 0x16);
  p.invalid = QColor(0xd0, 0x20, 0x20);
  p.directive = QColor(0x80, 0x50, 0x20);
  p.label = QColor(0x8a, 0x1c, 0xb0);
  p.string = QColor(0x0a, 0x30, 0x69);
  p.register_name = QColor(0x00, 0x6b, 0x8f);
  p.linked_line = QColor(0xff, 0xf1, 0xb8);
  p.linked_statement = QColor(0xff, 0xe0, 0x80);
  return p;
}

Palette make_dark() {
  Palette p;
  p.dark = true;
  p.paper = QColor(0x1e, 0x1f, 0x22);
  p.text = QColor(0xd4, 0xd7, 0xdc);
  p.margin = QColor(0x2b, 0x2d, 0x30);
  p.margin_text = QColor(0x7f, 0x84, 0x8e);
  p.caret_line = QColor(0x26, 0x28, 0x2e);
  p.selection = QColor(0x21, 0x42, 0x83);
  p.comment = QColor(0x7a, 0x7e, 0x85);
  p.keyword = QColor(0xcf, 0x8e, 0x6d);
  p.type = QColor(0x56, 0xb6, 0xc2);
  p.builtin = QColor(0xc7, 0x92, 0xea);
  p.tensor = QColor(0x61, 0xaf, 0xef);
  p.size_param = QColor(0xe5, 0xc0, 0x7b);
  p.index = QColor(0x98, 0xc3, 0x79);
  p.number = QColor(0x2a, 0xac, 0xb8);
  p.op = QColor(0xab, 0xb2, 0xbf);
  p.reduction = QColor(0xef, 0x59, 0x6f);
  p.invalid = QColor(0xff, 0x55, 0x55);
  p.directive = QColor(0xbb, 0xb5, 0x29);
  p.label = QColor(0xc7, 0x92, 0xea);
  p.string = QColor(0x6a, 0xab, 0x73);
  p.register_name = QColor(0x56, 0xb6, 0xc2);
  p.linked_line = QColor(0x3d, 0x3a, 0x1c);
  p.linked_statement = QColor(0x5a, 0x4a, 0x10);
  return p;
}

}  // namespace

const Palette& palette(bool dark) {
  static const Palette light = make_light(), night = make_dark();
  return dark ? night : light;
}

QPalette widget_palette(bool dark) {
  if (!dark) return QApplication::style()->standardPalette();
  const Palette& p = palette(true);
  QPalette q;
  QColor panel = p.margin, muted = p.margin_text;
  q.setColor(QPalette::Window, panel);
  q.setColor(QPalette::WindowText, p.text);
  q.setColor(QPalette::Base, p.paper);
  q.setColor(QPalette::AlternateBase, p.caret_line);
  q.setColor(QPalette::Text, p.text);
  q.setColor(QPalette::PlaceholderText, muted);
  q.setColor(QPalette::Button, panel);
  q.setColor(QPalette::ButtonText, p.text);
  q.setColor(QPalette::BrightText, QColor(0xff, 0x80, 0x80));
  q.setColor(QPalette::Highlight, p.selection);
  q.setColor(QPalette::HighlightedText, p.text);
  q.setColor(QPalette::ToolTipBase, p.caret_line);
  q.setColor(QPalette::ToolTipText, p.text);
  q.setColor(QPalette::Link, p.tensor);
  q.setColor(QPalette::Light, panel.lighter(130));
  q.setColor(QPalette::Midlight, panel.lighter(115));
  q.setColor(QPalette::Mid, panel.darker(130));
  q.setColor(QPalette::Dark, panel.darker(160));
  q.setColor(QPalette::Shadow, QColor(0, 0, 0));
  for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    q.setColor(QPalette::Disabled, r, muted);
  return q;
}

}  // namespace tcs
