// One QGraphicsItem paints the whole picture: rectangles grouped by colour and lines
// grouped by kind go to the painter in a handful of calls, built once per picture, so a
// redraw after a pan or zoom does no per-point work beyond the painter's own.
#include "views/explorers/DomainView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QSlider>
#include <QSvgGenerator>
#include <QToolButton>
#include <QFileDialog>
#include <QWheelEvent>

#include <cmath>
#include <map>

#include "views/service/CompileService.h"

namespace tcs {

namespace {

constexpr double kStep = 14;  // scene units between neighbouring points
constexpr double kDot = 8;

QColor group_colour(int group) {
  static const QColor palette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                   QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2),
                                   QColor(0xbc, 0xbd, 0x22), QColor(0x17, 0xbe, 0xcf), QColor(0x39, 0x3b, 0x79),
                                   QColor(0x63, 0x79, 0x39), QColor(0x84, 0x3c, 0x39), QColor(0x7b, 0x41, 0x73)};
  if (group < 0) return QColor(0x70, 0x70, 0x70);
  return palette[size_t(group) % (sizeof palette / sizeof palette[0])];
}

const QColor kBroken(0xd6, 0x27, 0x28);  // what a schedule breaks

QColor arrow_colour(const DomainPicture::Arrow& a) {
  if (a.violated) return kBroken;
  switch (a.kind) {
    case DependenceKind::Reduction: return QColor(0x60, 0x60, 0x60);
    case DependenceKind::Flow: return QColor(0x1a, 0x55, 0x99);
    case DependenceKind::Anti: return QColor(0x80, 0x50, 0xa0);
    case DependenceKind::Output: return QColor(0x80, 0x60, 0x30);
  }
  return Qt::black;
}

QPointF at(int64_t x, int64_t y) { return {double(x) * kStep, double(y) * kStep}; }

// Lines keep their width in pixels whatever the zoom.
QPen cosmetic(const QColor& c, double width) {
  QPen p(c, width);
  p.setCosmetic(true);
  return p;
}

}  // namespace

// The picture, batched for the painter.
class PointsItem : public QGraphicsItem {
 public:
  void set_picture(const DomainPicture& pic, bool framed, bool dark) {
    prepareGeometryChange();
    dark_ = dark;
    bounds_ = QRectF(at(pic.min_x, pic.min_y), at(pic.max_x, pic.max_y)).adjusted(-kStep, -kStep, kStep, kStep);
    framed_ = framed;
    lit_.clear(), unlit_.clear(), rings_.clear(), tiles_.clear(), lines_.clear();
    for (const DomainPicture::Point& p : pic.points) {
      QRectF r(at(p.x, p.y) - QPointF(kDot / 2, kDot / 2), QSizeF(kDot, kDot));
      (p.lit ? lit_ : unlit_)[p.group].push_back(r);
      if (p.violated) rings_.push_back(r.adjusted(-2.5, -2.5, 2.5, 2.5));
    }
    for (const DomainPicture::Box& b : pic.tiles)
      tiles_[b.group].push_back(QRectF(at(b.x0, b.y0), at(b.x1, b.y1)).adjusted(-kStep / 2 + 1, -kStep / 2 + 1, kStep / 2 - 1, kStep / 2 - 1));
    for (const DomainPicture::Arrow& a : pic.arrows) {
      QPointF p0 = at(a.x0, a.y0), p1 = at(a.x1, a.y1);
      QLineF line(p0, p1);
      double len = line.length();
      if (len <= 0) continue;
      // Stop short of the dots and add a head.
      QPointF u = (p1 - p0) / len;
      QPointF s = p0 + u * (kDot / 2 + 1), e = p1 - u * (kDot / 2 + 1);
      QPointF n(-u.y(), u.x());
      auto& v = lines_[arrow_colour(a).rgb()];
      v.push_back(QLineF(s, e));
      v.push_back(QLineF(e, e - u * 4 + n * 3));
      v.push_back(QLineF(e, e - u * 4 - n * 3));
    }
    update();
  }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override {
    p->setRenderHint(QPainter::Antialiasing, false);
    for (auto& [group, rects] : tiles_) {
      QColor c = group_colour(group);
      c.setAlpha(dark_ ? 60 : 35);
      p->setPen(cosmetic(group_colour(group), 1));
      p->setBrush(c);
      p->drawRects(rects.data(), int(rects.size()));
    }
    p->setPen(Qt::NoPen);
    for (auto& [group, rects] : unlit_) {
      QColor c = group_colour(group);
      c.setAlpha(55);
      p->setBrush(c);
      p->drawRects(rects.data(), int(rects.size()));
    }
    for (auto& [group, rects] : lit_) {
      p->setBrush(group_colour(group));
      p->drawRects(rects.data(), int(rects.size()));
    }
    p->setBrush(Qt::NoBrush);
    if (!rings_.empty()) {
      p->setPen(cosmetic(kBroken, 2));
      p->drawRects(rings_.data(), int(rings_.size()));
    }
    p->setRenderHint(QPainter::Antialiasing, true);
    for (auto& [rgb, lines] : lines_) {
      p->setPen(cosmetic(QColor::fromRgb(rgb), rgb == kBroken.rgb() ? 2 : 1));
      p->drawLines(lines.data(), int(lines.size()));
    }
    if (framed_) {
      QPen frame = cosmetic(QColor(0xe0, 0xa0, 0x00), 2);
      frame.setStyle(Qt::DashLine);
      p->setPen(frame);
      p->drawRect(bounds_.adjusted(2, 2, -2, -2));
    }
  }

 private:
  QRectF bounds_;
  bool framed_ = false, dark_ = false;
  std::map<int, std::vector<QRectF>> lit_, unlit_, tiles_;
  std::vector<QRectF> rings_;
  std::map<QRgb, std::vector<QLineF>> lines_;
};

namespace {

// Wheel zooms about the cursor; a drag pans; a press and release in place is a click.
class ZoomView : public QGraphicsView {
 public:
  std::function<void(QPointF)> on_click;
  using QGraphicsView::QGraphicsView;

 protected:
  void wheelEvent(QWheelEvent* e) override {
    double f = std::pow(1.0015, e->angleDelta().y());
    setTransformationAnchor(AnchorUnderMouse);
    scale(f, f);
  }
  void mousePressEvent(QMouseEvent* e) override {
    press_ = e->pos();
    QGraphicsView::mousePressEvent(e);
  }
  void mouseReleaseEvent(QMouseEvent* e) override {
    QGraphicsView::mouseReleaseEvent(e);
    if ((e->pos() - press_).manhattanLength() < 4 && on_click) on_click(mapToScene(e->pos()));
  }

 private:
  QPoint press_;
};

QString sizes_text(const SizeMap& sizes) {
  QStringList parts;
  for (const auto& [name, value] : sizes) parts << QStringLiteral("%1=%2").arg(QString::fromStdString(name)).arg(value);
  return parts.join(QLatin1Char(' '));
}

}  // namespace

DomainView::DomainView(QWidget* parent) : QWidget(parent) {
  statement_ = new QComboBox(this);
  statement_->setObjectName(QStringLiteral("domainStatement"));
  x_ = new QComboBox(this);
  y_ = new QComboBox(this);
  colour_ = new QComboBox(this);
  colour_->addItems({tr("tiles"), tr("threads"), tr("vector lanes")});
  all_deps_ = new QCheckBox(tr("all dependences"), this);
  all_deps_->setToolTip(tr("Off: only dependences that cross tiles and broken ones"));
  sizes_ = new QLineEdit(this);
  sizes_->setObjectName(QStringLiteral("viewSizes"));
  sizes_->setToolTip(tr("The sizes the view enumerates (NAME=INT ...); Enter recomputes"));
  auto* export_button = new QToolButton(this);
  export_button->setText(tr("Export"));
  export_button->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(export_button);
  menu->addAction(tr("SVG..."), this, [this] {
    QString f = QFileDialog::getSaveFileName(this, tr("Export SVG"), QStringLiteral("domain.svg"), tr("SVG (*.svg)"));
    if (!f.isEmpty()) export_to(f);
  });
  menu->addAction(tr("PNG..."), this, [this] {
    QString f = QFileDialog::getSaveFileName(this, tr("Export PNG"), QStringLiteral("domain.png"), tr("PNG (*.png)"));
    if (!f.isEmpty()) export_to(f);
  });
  export_button->setMenu(menu);

  // Narrow combo boxes and two rows of controls: the dock shares its width with the
  // code panes and must not squeeze the editor on a small screen.
  for (QComboBox* box : {statement_, x_, y_, colour_}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(4);
  }
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Statement"), this));
  top->addWidget(statement_, 2);
  top->addWidget(new QLabel(tr("across"), this));
  top->addWidget(x_, 1);
  top->addWidget(new QLabel(tr("down"), this));
  top->addWidget(y_, 1);
  auto* second = new QHBoxLayout;
  second->addWidget(new QLabel(tr("colour"), this));
  second->addWidget(colour_, 1);
  second->addWidget(all_deps_);
  second->addStretch();
  second->addWidget(export_button);

  sliders_ = new QWidget(this);
  sliders_layout_ = new QVBoxLayout(sliders_);
  sliders_layout_->setContentsMargins(0, 0, 0, 0);

  scrubber_ = new QSlider(Qt::Horizontal, this);
  scrubber_->setObjectName(QStringLiteral("scrubber"));
  scrubber_->setToolTip(tr("Execution order: points run up to this time are lit"));
  time_label_ = new QLabel(this);
  auto* time_row = new QHBoxLayout;
  time_row->addWidget(new QLabel(tr("Time"), this));
  time_row->addWidget(scrubber_, 1);
  time_row->addWidget(time_label_);
  time_label_->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("00000 of 00000")));

  what_if_ = new QLineEdit(this);
  what_if_->setObjectName(QStringLiteral("whatIfSchedule"));
  what_if_->setPlaceholderText(tr("What-if schedule, e.g. { S0[i, j] -> [j, i] }: Enter shows what it breaks"));
  what_if_->setClearButtonEnabled(true);

  scene_ = new QGraphicsScene(this);
  auto* view = new ZoomView(scene_, this);
  view->setDragMode(QGraphicsView::ScrollHandDrag);
  view->setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  view->on_click = [this](QPointF p) { clicked_at(p); };
  view_ = view;
  item_ = new PointsItem;
  scene_->addItem(item_);

  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setMinimumHeight(status_->fontMetrics().lineSpacing() * 4);
  status_->setAlignment(Qt::AlignLeft | Qt::AlignTop);

  auto* layout = new QVBoxLayout(this);
  auto* inputs = new QHBoxLayout;
  inputs->addWidget(new QLabel(tr("View sizes"), this));
  inputs->addWidget(sizes_, 1);
  layout->addLayout(top);
  layout->addLayout(second);
  layout->addLayout(inputs);
  layout->addWidget(what_if_);
  layout->addWidget(sliders_);
  layout->addLayout(time_row);
  layout->addWidget(view_, 1);
  layout->addWidget(status_);

  auto changed = [this] {
    if (filling_) return;
    choice_.statement = statement_->currentIndex();
    choice_.x = x_->currentIndex();
    choice_.y = y_->currentIndex() - 1;  // first entry: none
    choice_.colour = DomainChoice::Colour(colour_->currentIndex());
    choice_.all_dependences = all_deps_->isChecked();
    redraw();
  };
  connect(statement_, &QComboBox::currentIndexChanged, this, [this, changed] {
    if (filling_) return;
    choice_.statement = statement_->currentIndex();
    choice_.x = -1;  // its own default axes and slice
    choice_.fixed.clear();
    fill_controls();
    changed();
  });
  auto axes_changed = [this, changed] {
    if (filling_) return;
    changed();
    rebuild_sliders();
  };
  connect(x_, &QComboBox::currentIndexChanged, this, axes_changed);
  connect(y_, &QComboBox::currentIndexChanged, this, axes_changed);
  connect(colour_, &QComboBox::currentIndexChanged, this, changed);
  connect(all_deps_, &QCheckBox::toggled, this, changed);
  connect(scrubber_, &QSlider::valueChanged, this, [this](int v) {
    if (filling_) return;
    choice_.time = v >= scrubber_->maximum() ? -1 : v;
    redraw();
  });
  connect(sizes_, &QLineEdit::returnPressed, this, &DomainView::request_changed);
  connect(what_if_, &QLineEdit::returnPressed, this, &DomainView::request_changed);
  status_->setText(tr("Compile a kernel to see its iteration space."));
}

SpaceRequest DomainView::request_for(std::shared_ptr<const CompileOutcome> outcome) const {
  SpaceRequest r;
  r.outcome = std::move(outcome);
  r.schedule = what_if_->text().trimmed().toStdString();
  // The typed sizes hold while they name this kernel's sizes; otherwise defaults.
  for (const QString& part : sizes_->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    QStringList kv = part.split(QLatin1Char('='));
    bool ok = false;
    if (kv.size() == 2) {
      long long v = kv[1].toLongLong(&ok);
      if (ok && r.outcome && r.outcome->shapes && r.outcome->shapes->sizes.count(kv[0].toStdString()))
        r.view_sizes[kv[0].toStdString()] = v;
    }
  }
  if (r.outcome && r.outcome->shapes && r.view_sizes.size() != r.outcome->shapes->sizes.size()) r.view_sizes.clear();
  return r;
}

void DomainView::show_result(std::shared_ptr<const SpaceResult> result) {
  result_ = std::move(result);
  if (!result_->space) {
    status_->setText(QString::fromStdString(result_->error));
    item_->set_picture({}, false, dark_);
    picture_ = {};
    return;
  }
  filling_ = true;
  sizes_->setText(sizes_text(result_->view_sizes));
  filling_ = false;
  fill_controls();
  redraw();
}

void DomainView::fill_controls() {
  if (!result_ || !result_->space) return;
  const IterationSpace& space = *result_->space;
  filling_ = true;
  // Keep the statement and dimensions chosen when the new space still has them.
  QString stmt = statement_->currentText().section(QLatin1Char(' '), 0, 0);
  statement_->clear();
  for (const StatementSpace& s : space.statements)
    statement_->addItem(QStringLiteral("%1 (%2 points)").arg(QString::fromStdString(s.name)).arg(s.points.size()));
  int keep = -1;
  for (size_t i = 0; i < space.statements.size(); ++i)
    if (QString::fromStdString(space.statements[i].name) == stmt) keep = int(i);
  if (keep < 0) {
    // The statement with the most points: the interesting one in a reduction.
    keep = 0;
    for (size_t i = 0; i < space.statements.size(); ++i)
      if (space.statements[i].points.size() > space.statements[size_t(keep)].points.size()) keep = int(i);
  }
  statement_->setCurrentIndex(keep);
  const StatementSpace& s = space.statements[size_t(keep)];
  if (QString::fromStdString(s.name) != stmt || keep != choice_.statement) {
    choice_.x = -1;  // another statement: its own default axes and slice
    choice_.fixed.clear();
  }
  choice_.statement = keep;
  int n = int(s.dims.size());
  QStringList dims;
  for (const std::string& d : s.dims) dims << QString::fromStdString(d);
  x_->clear();
  x_->addItems(dims);
  y_->clear();
  y_->addItem(tr("(none)"));
  y_->addItems(dims);
  // Default: the two dimensions with the most values (the inner one on a tie), the inner
  // of them across: a convolution shows its image plane, a matmul its widest pair.
  auto ranges = dimension_ranges(s);
  if (choice_.x >= n || choice_.y >= n || choice_.x == choice_.y || choice_.x < 0) {
    std::vector<int> by_size;
    for (int d = 0; d < n; ++d)
      if (ranges[size_t(d)].first != ranges[size_t(d)].second) by_size.push_back(d);
    std::stable_sort(by_size.begin(), by_size.end(), [&](int a, int b) {
      int64_t ea = ranges[size_t(a)].second - ranges[size_t(a)].first, eb = ranges[size_t(b)].second - ranges[size_t(b)].first;
      return ea != eb ? ea > eb : a > b;
    });
    if (by_size.size() >= 2) choice_.x = std::max(by_size[0], by_size[1]), choice_.y = std::min(by_size[0], by_size[1]);
    else choice_.x = by_size.empty() ? 0 : by_size[0], choice_.y = -1;
  }
  x_->setCurrentIndex(choice_.x);
  y_->setCurrentIndex(choice_.y + 1);
  if (choice_.fixed.size() != size_t(n)) {
    choice_.fixed.assign(size_t(n), 0);
    for (int d = 0; d < n; ++d) choice_.fixed[size_t(d)] = ranges[size_t(d)].first;
  }
  for (int d = 0; d < n; ++d)
    choice_.fixed[size_t(d)] = std::clamp(choice_.fixed[size_t(d)], ranges[size_t(d)].first, ranges[size_t(d)].second);
  scrubber_->setRange(0, int(std::max<int64_t>(0, space.times)));
  if (choice_.time < 0 || choice_.time > space.times) scrubber_->setValue(scrubber_->maximum());
  filling_ = false;
  rebuild_sliders();
}

void DomainView::rebuild_sliders() {
  while (QLayoutItem* it = sliders_layout_->takeAt(0)) {
    delete it->widget();
    delete it;
  }
  if (!result_ || !result_->space || choice_.statement < 0) return;
  const StatementSpace& s = result_->space->statements[size_t(choice_.statement)];
  if (choice_.fixed.size() != s.dims.size()) return;
  auto ranges = dimension_ranges(s);
  for (int d = 0; d < int(s.dims.size()); ++d) {
    if (d == choice_.x || d == choice_.y || ranges[size_t(d)].first == ranges[size_t(d)].second) continue;
    auto* row = new QWidget(sliders_);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(row);
    auto* slider = new QSlider(Qt::Horizontal, row);
    slider->setObjectName(QStringLiteral("fix_") + QString::fromStdString(s.dims[size_t(d)]));
    slider->setRange(int(ranges[size_t(d)].first), int(ranges[size_t(d)].second));
    slider->setValue(int(choice_.fixed[size_t(d)]));
    auto show = [label, name = QString::fromStdString(s.dims[size_t(d)])](int v) { label->setText(QStringLiteral("%1 = %2").arg(name).arg(v)); };
    show(slider->value());
    connect(slider, &QSlider::valueChanged, this, [this, d, show](int v) {
      show(v);
      choice_.fixed[size_t(d)] = v;
      redraw();
    });
    h->addWidget(label);
    h->addWidget(slider, 1);
    sliders_layout_->addWidget(row);
  }
}

void DomainView::set_choice(const DomainChoice& c) {
  choice_ = c;
  filling_ = true;
  statement_->setCurrentIndex(c.statement);
  filling_ = false;
  DomainChoice keep = c;
  fill_controls();
  choice_.x = keep.x, choice_.y = keep.y, choice_.colour = keep.colour, choice_.all_dependences = keep.all_dependences;
  if (keep.fixed.size() == choice_.fixed.size()) choice_.fixed = keep.fixed;
  filling_ = true;
  x_->setCurrentIndex(choice_.x);
  y_->setCurrentIndex(choice_.y + 1);
  colour_->setCurrentIndex(int(choice_.colour));
  all_deps_->setChecked(choice_.all_dependences);
  scrubber_->setValue(keep.time < 0 ? scrubber_->maximum() : int(keep.time));
  choice_.time = keep.time;
  filling_ = false;
  rebuild_sliders();
  redraw();
}

void DomainView::highlight_statement(const std::string& name) {
  highlighted_ = name;
  if (result_ && result_->space) {
    const auto& st = result_->space->statements;
    for (size_t i = 0; i < st.size(); ++i)
      if (st[i].name == name && int(i) != choice_.statement) {
        choice_.statement = int(i);
        choice_.fixed.clear();
        choice_.x = choice_.y = -2;  // choose the defaults for that statement
        filling_ = true;
        statement_->setCurrentIndex(int(i));
        filling_ = false;
        fill_controls();
      }
  }
  redraw();
}

void DomainView::redraw() {
  if (!result_ || !result_->space) return;
  const IterationSpace& space = *result_->space;
  picture_ = domain_picture(space, choice_);
  const StatementSpace& s = space.statements[size_t(choice_.statement)];
  item_->set_picture(picture_, !highlighted_.empty() && highlighted_ == s.name, dark_);
  QRectF bounds = item_->boundingRect();
  if (bounds != scene_->sceneRect()) {
    // A new plane: show all of it, but points no larger than a few times their size.
    scene_->setSceneRect(bounds);
    view_->resetTransform();
    view_->fitInView(bounds, Qt::KeepAspectRatio);
    double scale = view_->transform().m11();
    if (scale > 3) view_->setTransform(QTransform::fromScale(3, 3));
  }
  time_label_->setText(choice_.time < 0 ? tr("all %1").arg(space.times) : tr("%1 of %2").arg(choice_.time + 1).arg(space.times));
  QStringList lines;
  lines << tr("%1 points shown of %2; %3 tiles; %4 arrows; %5 dependences in all")
               .arg(picture_.points.size())
               .arg(s.points.size())
               .arg(s.tiles.size())
               .arg(picture_.arrows.size())
               .arg(space.dependences.size());
  if (space.violations > 0)
    lines << tr("%1 dependences broken by %2 (%3 at this statement): in red")
                 .arg(space.violations)
                 .arg(space.what_if ? tr("the what-if schedule") : tr("the schedule"))
                 .arg(picture_.violated);
  else if (space.what_if)
    lines << tr("The what-if schedule breaks no dependence.");
  if (result_->scaled_down) lines << tr("Scaled down: the view enumerates the sizes above, not the kernel's.");
  for (const std::string& n : space.notes) lines << QString::fromStdString(n);
  status_->setText(lines.join(QLatin1Char('\n')));
}

void DomainView::clicked_at(QPointF pos) {
  if (!result_ || !result_->space) return;
  int64_t x = std::llround(pos.x() / kStep), y = std::llround(pos.y() / kStep);
  for (const DomainPicture::Point& p : picture_.points)
    if (p.x == x && (choice_.y < 0 || p.y == y)) {
      const StatementSpace& s = result_->space->statements[size_t(choice_.statement)];
      const SpacePoint& sp = s.points[size_t(p.index)];
      QStringList coords;
      for (size_t d = 0; d < s.dims.size(); ++d)
        coords << QStringLiteral("%1=%2").arg(QString::fromStdString(s.dims[d])).arg(s.coords_of(size_t(p.index))[d]);
      status_->setText(tr("%1[%2]: time %3, tile %4, thread %5, lane %6")
                           .arg(QString::fromStdString(s.name), coords.join(QStringLiteral(", ")))
                           .arg(sp.time)
                           .arg(sp.tile)
                           .arg(sp.thread)
                           .arg(sp.lane));
      emit point_clicked(s.name, s.source_stmt);
      return;
    }
}

bool DomainView::export_to(const QString& path) {
  QRectF r = scene_->sceneRect();
  if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(r.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), r.size()));
    svg.setTitle(QStringLiteral("TC Studio iteration domain"));
    QPainter p(&svg);
    scene_->render(&p, QRectF(QPointF(0, 0), r.size()), r);
    return p.end();
  }
  QImage image((r.size() * 2).toSize(), QImage::Format_ARGB32);
  image.fill(dark_ ? QColor(0x1e, 0x1e, 0x1e) : Qt::white);
  QPainter p(&image);
  scene_->render(&p, QRectF(QPointF(0, 0), r.size() * 2), r);
  p.end();
  return image.save(path);
}

void DomainView::set_dark(bool dark) {
  dark_ = dark;
  view_->setBackgroundBrush(dark ? QColor(0x1e, 0x1e, 0x1e) : QColor(Qt::white));
  redraw();
}

}  // namespace tcs
