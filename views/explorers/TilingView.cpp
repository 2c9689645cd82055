#include "views/explorers/TilingView.h"

#include <QGridLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>
#include <map>
#include <set>

#include "Compiler.h"
#include "options/OptionsSchema.h"
#include "poly/IterationSpace.h"
#include "support/ScalarType.h"
#include "views/explorers/LatestJob.h"
#include "views/theme/Theme.h"
#include "views/service/CompileService.h"

namespace tcs {

// ---------------------------------------------------------------- plain data

namespace {

void collect_bands(const ScheduleNode& n, std::vector<TilingBand>& out) {
  if (n.kind == ScheduleNode::Kind::Band && !n.members.empty() &&
      (n.role == LoopRole::Tile || n.role == LoopRole::Scheduled)) {
    TilingBand b;
    b.statements = n.statements;
    b.tiled = n.role == LoopRole::Tile;
    for (size_t i = 0; i < n.members.size(); ++i) {
      b.loop_ids.push_back(n.members[i].loop_id);
      b.sizes.push_back(b.tiled && i < n.tile_sizes.size() ? n.tile_sizes[i] : 0);
    }
    out.push_back(std::move(b));
    return;  // the outermost band on this path: what is below is its point loops
  }
  for (const ScheduleNode& c : n.children) collect_bands(c, out);
}

std::string human_bytes(int64_t b) {
  char buf[32];
  if (b >= (int64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1 << 20));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024.0);
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
  return buf;
}

}  // namespace

std::vector<TilingBand> tiling_bands(const ScheduleNode& root) {
  std::vector<TilingBand> out;
  collect_bands(root, out);
  return out;
}

namespace {

// `tile` (sizes from the outer loop in, shared by every band that takes them) with the
// band's first sizes.size() entries set; 0 keeps a loop whole, which only the last sized
// loop can become.
Expected<std::vector<int64_t>> tile_with(std::vector<int64_t> tile, const std::vector<int64_t>& sizes) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] > 0) {
      if (i < tile.size()) tile[i] = sizes[i];
      else if (i == tile.size()) tile.push_back(sizes[i]);
      else return Error{ErrorKind::Options, "loop " + std::to_string(i + 1) + " can be tiled once the loops before it are"};
    } else if (i + 1 == tile.size()) {
      tile.pop_back();
    } else if (i < tile.size()) {
      return Error{ErrorKind::Options, "loop " + std::to_string(i + 1) + " cannot stay whole while loops after it are tiled"};
    }
  }
  return tile;
}

}  // namespace

Expected<MappingOptions> with_band_tiles(MappingOptions o, const TilingBand& band, const std::vector<int64_t>& sizes) {
  std::set<std::string> stmts;
  for (const std::string& s : band.statements) stmts.insert(s.substr(0, s.find("_init")));
  bool own = !stmts.empty();
  for (const std::string& s : stmts) {
    bool has = false;
    for (const StatementOptions& so : o.statements) has |= so.statement == s && so.fields.count("tile");
    own &= has;
  }
  if (own) {  // the band's statements have tiles of their own: read and written by the table
    const OptionField& field = *find_option_field("tile");
    for (StatementOptions& so : o.statements) {
      if (!stmts.count(so.statement)) continue;
      auto current = mapping_options_for_statement(o, so.statement);
      if (!current) return current.failure();
      auto tile = tile_with(current->tile, sizes);
      if (!tile) return tile.failure();
      current->tile = *tile;
      so.fields["tile"] = option_get(*current, field);
    }
  } else {
    auto tile = tile_with(o.tile, sizes);
    if (!tile) return tile.failure();
    o.tile = *tile;
    // A band over some of the statements only is tiled when imperfect nests are.
    if (!o.tile.empty() && !band.tiled) o.tile_imperfectly_nested = true;
  }
  if (Status s = mapping_options_validate(o); !s) return s.failure();
  return o;
}

Expected<std::vector<FootprintRow>> footprint_rows(const CompileOutcome& outcome) {
  const SemaDef* def = outcome.def();
  if (!def || !outcome.result) return Error{ErrorKind::Internal, "compile the kernel first"};
  auto footprints = tile_footprints(outcome.result->lowering);
  if (!footprints) return footprints.failure();
  auto element_bytes = [&](const std::string& tensor) {
    int t = def->find_tensor(tensor);
    return t < 0 ? 4 : scalar_type_bytes(def->tensors[size_t(t)].type);
  };
  std::map<std::string, int64_t> packed;  // what the largest pack of each tensor copies
  for (const PackSite& p : outcome.result->lowering.nest.packs)
    if (!p.local) packed[p.name] = std::max(packed[p.name], p.numel() * element_bytes(p.name));
  std::vector<FootprintRow> rows;
  for (size_t i = 0; i < footprints->size();) {
    const std::string& st = (*footprints)[i].statement;
    FootprintRow total{st, "", 0, 0};
    std::vector<FootprintRow> tensors;
    for (; i < footprints->size() && (*footprints)[i].statement == st; ++i) {
      const TileFootprint& f = (*footprints)[i];
      FootprintRow r{st, f.tensor, f.elements * element_bytes(f.tensor), 0};
      if (auto it = packed.find(f.tensor); it != packed.end()) r.packed_bytes = it->second;
      total.bytes += r.bytes;
      total.packed_bytes += r.packed_bytes;
      tensors.push_back(r);
    }
    rows.push_back(total);
    rows.insert(rows.end(), tensors.begin(), tensors.end());
  }
  return rows;
}

// ---------------------------------------------------------------- the chart

namespace {
constexpr int kLabelWidth = 130, kRowHeight = 22, kTop = 40, kRight = 16;
}

FootprintChart::FootprintChart(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void FootprintChart::set_rows(std::vector<FootprintRow> rows, HostCaches caches) {
  rows_ = std::move(rows);
  caches_ = caches;
  updateGeometry();
  update();
}

QSize FootprintChart::sizeHint() const { return QSize(420, kTop + 12 + std::max<int>(1, int(rows_.size())) * kRowHeight); }

double FootprintChart::x_of(int64_t bytes) const {
  // From 64 bytes (a cache line) to four times L2 or twice the largest footprint.
  int64_t top = std::max<int64_t>(caches_.l2_bytes * 4, 1 << 16);
  for (const FootprintRow& r : rows_) top = std::max({top, r.bytes * 2, r.packed_bytes * 2});
  double lo = std::log2(64.0), hi = std::log2(double(top));
  double t = (std::log2(double(std::max<int64_t>(bytes, 64))) - lo) / (hi - lo);
  return kLabelWidth + t * (width() - kLabelWidth - kRight);
}

QRectF FootprintChart::bar_rect(int row) const {
  if (row < 0 || size_t(row) >= rows_.size()) return {};
  double y = kTop + row * kRowHeight + 3;
  return QRectF(kLabelWidth, y, std::max(2.0, x_of(rows_[size_t(row)].bytes) - kLabelWidth), kRowHeight - 10);
}

QColor FootprintChart::bar_colour(int row) const {
  int64_t b = rows_[size_t(row)].bytes;
  if (caches_.l1_bytes > 0 && b <= caches_.l1_bytes) return QColor(0x22, 0xa0, 0x55);
  if (caches_.l2_bytes > 0 && b <= caches_.l2_bytes) return QColor(0xe0, 0xa0, 0x20);
  return QColor(0xd0, 0x40, 0x40);
}

void FootprintChart::set_dark(bool dark) {
  dark_ = dark;
  update();
}

void FootprintChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  QColor ink = tcs::palette(dark_).text;
  p.setPen(ink);
  if (rows_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("no tiled band: nothing to measure per tile"));
    return;
  }
  int bottom = kTop + int(rows_.size()) * kRowHeight;
  int line = 0;  // L1's label above L2's, so close lines do not print over each other
  for (auto [bytes, name] : {std::pair{caches_.l1_bytes, "L1"}, std::pair{caches_.l2_bytes, "L2"}}) {
    if (bytes <= 0) continue;
    ++line;
    double x = x_of(bytes);
    p.setPen(QPen(ink, 1, Qt::DashLine));
    p.drawLine(QPointF(x, kTop - 18 + 14 * (line - 1)), QPointF(x, bottom));
    p.setPen(ink);
    QString label = QStringLiteral("%1 %2").arg(QString::fromLatin1(name), QString::fromStdString(human_bytes(bytes)));
    int w = p.fontMetrics().horizontalAdvance(label);
    // Right of its line, or left of it where the chart ends.
    p.drawText(QPointF(x + 3 + w > width() ? x - 3 - w : x + 3, kTop - 22 + 14 * (line - 1)), label);
  }
  QFont bold = font();
  bold.setBold(true);
  for (size_t i = 0; i < rows_.size(); ++i) {
    const FootprintRow& r = rows_[i];
    double y = kTop + double(i) * kRowHeight;
    bool total = r.tensor.empty();
    p.setFont(total ? bold : font());
    p.setPen(ink);
    QString label = total ? QString::fromStdString(r.statement) + tr(" (all)") : QStringLiteral("   ") + QString::fromStdString(r.tensor);
    p.drawText(QRectF(4, y, kLabelWidth - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft, label);
    QRectF bar = bar_rect(int(i));
    p.setPen(Qt::NoPen);
    p.setBrush(bar_colour(int(i)));
    p.drawRect(bar);
    if (r.packed_bytes > 0) {  // the copy a pack makes, hatched, under the bar
      QRectF copy(kLabelWidth, bar.bottom() + 1, std::max(2.0, x_of(r.packed_bytes) - kLabelWidth), 4);
      p.setBrush(QBrush(ink, Qt::BDiagPattern));
      p.drawRect(copy);
    }
    p.setPen(ink);
    p.setFont(font());
    QString text = QString::fromStdString(human_bytes(r.bytes));
    if (r.packed_bytes > 0) text += tr(" · packed copy %1").arg(QString::fromStdString(human_bytes(r.packed_bytes)));
    p.drawText(QPointF(bar.right() + 4, y + kRowHeight / 2.0 + 4), text);
  }
}

// ---------------------------------------------------------------- the view

TilingView::TilingView(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)), caches_(host_caches()) {
  // A band of seven loops is wider than a docked view: its row scrolls, the chart fits.
  auto* bands_area = new QScrollArea(this);
  bands_area->setFrameShape(QFrame::NoFrame);
  bands_area->setWidgetResizable(true);
  bands_area->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  bands_widget_ = new QWidget(bands_area);
  grid_ = new QGridLayout(bands_widget_);
  grid_->setContentsMargins(0, 0, 0, 0);
  bands_area->setWidget(bands_widget_);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setStyleSheet(QStringLiteral("color: #c02020"));
  time_ = new QLabel(this);
  time_->setWordWrap(true);
  caches_label_ = new QLabel(this);
  caches_label_->setWordWrap(true);
  caches_label_->setText(caches_.l1_bytes > 0
                             ? tr("This machine: L1 data %1, L2 %2 per core (read from %3).")
                                   .arg(QString::fromStdString(human_bytes(caches_.l1_bytes)),
                                        QString::fromStdString(human_bytes(caches_.l2_bytes)), QString::fromStdString(caches_.source))
                             : tr("This machine does not report its cache sizes."));
  chart_ = new FootprintChart(this);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("<b>Tile sizes</b> per band (0: the loop stays whole)"), this));
  layout->addWidget(bands_area);
  layout->addWidget(status_);
  layout->addWidget(time_);
  layout->addWidget(new QLabel(tr("<b>Footprint of one tile</b> per statement and tensor"), this));
  layout->addWidget(caches_label_);
  layout->addWidget(chart_);
  layout->addStretch(1);
  connect(job_, &LatestJob::finished, this, &TilingView::footprints_shown);
}

bool TilingView::busy() const { return job_->busy(); }

QSpinBox* TilingView::size_box(int band, int member) const {
  if (band < 0 || size_t(band) >= boxes_.size() || member < 0 || size_t(member) >= boxes_[size_t(band)].size()) return nullptr;
  return boxes_[size_t(band)][size_t(member)];
}

void TilingView::show_outcome(std::shared_ptr<const CompileOutcome> outcome) {
  if (!outcome || !outcome->result || outcome->result->lowering.passes.empty()) return;
  outcome_ = outcome;
  bands_ = tiling_bands(outcome->result->lowering.passes.back().tree);
  rebuild_bands();
  status_->clear();
  HostCaches caches = caches_;
  if (time_now_.timed) time_before_ = time_now_;
  time_now_ = {};
  time_->setText(tr("timing this tiling..."));
  job_->submit([this, outcome, caches](const std::atomic<bool>& cancel, const LatestJob::Post& post) {
    auto rows = std::make_shared<Expected<std::vector<FootprintRow>>>(footprint_rows(*outcome));
    post([this, rows, caches] {
      if (*rows) chart_->set_rows(**rows, caches);
      else {
        chart_->set_rows({}, caches);
        status_->setText(QString::fromStdString(rows->error()));
      }
    });
    // The kernel as compiled, built and timed: the figure to compare with the last tiling.
    auto time = std::make_shared<QuickTime>();
    auto options = mapping_options_from_json(outcome->options_json);
    KernelSetup setup{outcome->checked, outcome->def(), outcome->header_sizes, *outcome->shapes};
    auto built = options ? compile_kernel(setup, *options, CodegenChoice{outcome->result->target, {}, true}, CompileHooks{&cancel, {}})
                         : Expected<CompileResult>(options.failure());
    if (built && built->kernel) *time = quick_time(*built->kernel, &cancel);
    else time->error = built ? "no kernel was built" : built.error();
    post([this, time] {
      time_now_ = *time;
      QString now = QString::fromStdString(quick_time_text(*time));
      time_->setText(time_before_.timed ? tr("This tiling: <b>%1</b><br>The one before: %2").arg(now, QString::fromStdString(quick_time_text(time_before_)))
                                        : tr("This tiling: <b>%1</b>").arg(now));
    });
  });
}

void TilingView::rebuild_bands() {
  while (QLayoutItem* item = grid_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  boxes_.clear();
  for (size_t b = 0; b < bands_.size(); ++b) {
    const TilingBand& band = bands_[b];
    QStringList stmts;
    for (const std::string& s : band.statements) stmts << QString::fromStdString(s);
    auto* label = new QLabel(tr("over %1%2").arg(stmts.join(", "), band.tiled ? QString() : tr(" (not tiled)")), bands_widget_);
    grid_->addWidget(label, int(b), 0);
    std::vector<QSpinBox*> row;
    for (size_t m = 0; m < band.loop_ids.size(); ++m) {
      auto* box = new QSpinBox(bands_widget_);
      box->setObjectName(QStringLiteral("tile_%1_%2").arg(b).arg(m));
      box->setRange(0, 4096);
      box->setSpecialValueText(tr("whole"));
      box->setPrefix(QStringLiteral("L%1: ").arg(band.loop_ids[m]));
      box->setValue(int(band.sizes[m]));
      box->setKeyboardTracking(false);  // typed digits apply on Enter or leaving the box
      connect(box, &QSpinBox::valueChanged, this, [this, b = int(b)] { sizes_edited(b); });
      grid_->addWidget(box, int(b), int(m) + 1);
      row.push_back(box);
    }
    boxes_.push_back(row);
  }
  // As tall as its rows plus the scroll bar: the rows never scroll vertically.
  auto* area = qobject_cast<QScrollArea*>(bands_widget_->parentWidget()->parentWidget());
  int row_height = QSpinBox().sizeHint().height() + grid_->verticalSpacing();
  if (area) area->setFixedHeight(std::max<int>(1, int(bands_.size())) * row_height + area->horizontalScrollBar()->sizeHint().height() + 4);
}

void TilingView::sizes_edited(int b) {
  if (!outcome_) return;
  std::vector<int64_t> sizes;
  for (QSpinBox* box : boxes_[size_t(b)]) sizes.push_back(box->value());
  auto options = mapping_options_from_json(outcome_->options_json);
  if (!options) return;
  auto changed = with_band_tiles(*options, bands_[size_t(b)], sizes);
  if (!changed) {
    status_->setText(QString::fromStdString(changed.error()));
    return;
  }
  status_->clear();
  emit options_chosen(*changed);
}

}  // namespace tcs
