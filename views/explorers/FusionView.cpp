#include "views/explorers/FusionView.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

#include "views/explorers/LatestJob.h"
#include "views/theme/Theme.h"
#include "views/service/CompileService.h"

namespace tcs {

namespace {

constexpr int kMargin = 8, kNodeHeight = 24, kNodeGap = 6, kGroupGap = 16, kArcRoom = 64;

QColor group_colour(int g, bool dark) {
  static const QColor light[] = {QColor(0xdb, 0xea, 0xfe), QColor(0xdc, 0xfc, 0xe7), QColor(0xfe, 0xf3, 0xc7),
                                 QColor(0xfc, 0xe7, 0xf3), QColor(0xed, 0xe9, 0xfe), QColor(0xcf, 0xfa, 0xfe)};
  QColor c = light[size_t(g) % std::size(light)];
  return dark ? c.darker(330) : c;
}

QString strategy_title(FusionStrategy s) { return QString::fromUtf8(fusion_strategy_name(s).data(), int(fusion_strategy_name(s).size())); }

}  // namespace

// ---------------------------------------------------------------- the graph

StatementGraphWidget::StatementGraphWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void StatementGraphWidget::set_graph(const StatementGraph* graph, std::vector<std::string> labels) {
  graph_ = graph ? std::optional<StatementGraph>(*graph) : std::nullopt;
  labels_ = std::move(labels);
  updateGeometry();
  update();
}

QRect StatementGraphWidget::node_rect(int node) const {
  if (!graph_ || node < 0 || size_t(node) >= graph_->nodes.size()) return {};
  // Nodes stack in execution order: by group, then as the nest lists them.
  int y = kMargin + 4, rank = 0;
  for (int g = 0; g < graph_->groups; ++g) {
    for (size_t i = 0; i < graph_->nodes.size(); ++i) {
      if (graph_->nodes[i].group != g) continue;
      if (int(i) == node) return QRect(kMargin + 8, y, std::max(80, width() - 2 * kMargin - 8 - kArcRoom), kNodeHeight);
      y += kNodeHeight + kNodeGap;
      ++rank;
    }
    y += kGroupGap - kNodeGap;
  }
  return {};
}

QRect StatementGraphWidget::group_rect(int group) const {
  QRect r;
  if (!graph_) return r;
  for (size_t i = 0; i < graph_->nodes.size(); ++i)
    if (graph_->nodes[i].group == group) r = r.united(node_rect(int(i)));
  return r.isNull() ? r : r.adjusted(-6, -4, 6, 4);
}

QSize StatementGraphWidget::sizeHint() const {
  int n = graph_ ? int(graph_->nodes.size()) : 0, g = graph_ ? graph_->groups : 0;
  return QSize(260, 2 * kMargin + 8 + n * (kNodeHeight + kNodeGap) + g * kGroupGap);
}

void StatementGraphWidget::set_dark(bool dark) {
  dark_ = dark;
  update();
}

void StatementGraphWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  QColor ink = tcs::palette(dark_).text;
  if (!graph_) {
    p.setPen(ink);
    p.drawText(rect(), Qt::AlignCenter, tr("no graph"));
    return;
  }
  for (int g = 0; g < graph_->groups; ++g) {
    QRect r = group_rect(g);
    if (r.isNull()) continue;
    p.setPen(QPen(group_colour(g, dark_).darker(160), 1.5));
    p.setBrush(group_colour(g, dark_));
    p.drawRoundedRect(r, 7, 7);
  }
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  p.setFont(mono);
  QFontMetrics fm(mono);
  for (size_t i = 0; i < graph_->nodes.size(); ++i) {
    QRect r = node_rect(int(i));
    p.setPen(QPen(ink, 1));
    p.setBrush(tcs::palette(dark_).paper);
    p.drawRoundedRect(r, 4, 4);
    QString label = QString::fromStdString(graph_->nodes[i].name);
    if (i < labels_.size() && !labels_[i].empty()) label += "  " + QString::fromStdString(labels_[i]).simplified();
    p.drawText(r.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(label, Qt::ElideRight, r.width() - 10));
  }
  // Producer -> consumer: an arc on the right, wider the further it reaches.
  QColor arrow = dark_ ? QColor(0x8a, 0xb4, 0xf8) : QColor(0x1d, 0x4e, 0xd8);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  p.setFont(small);
  for (const StatementGraph::Edge& e : graph_->edges) {
    QRect a = node_rect(e.from), b = node_rect(e.to);
    if (a.isNull() || b.isNull()) continue;
    QPointF from(a.right(), a.center().y()), to(b.right() + 2, b.center().y());
    double reach = std::min<double>(kArcRoom - 12, 14 + 0.35 * std::abs(to.y() - from.y()));
    QPainterPath path(from);
    path.cubicTo(from + QPointF(reach, 0), to + QPointF(reach, 0), to);
    p.setPen(QPen(arrow, 1.4));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    QPolygonF head;
    head << to << to + QPointF(7, -4) << to + QPointF(7, 4);
    p.setBrush(arrow);
    p.drawPolygon(head);
    p.drawText(QPointF(from.x() + reach * 0.75 + 2, (from.y() + to.y()) / 2 + 4), QString::fromStdString(e.tensor));
  }
}

// ---------------------------------------------------------------- the cards

FusionView::FusionView(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)) {
  auto* row = new QHBoxLayout;
  for (size_t k = 0; k < cards_.size(); ++k) {
    auto* box = new QGroupBox(this);
    auto* v = new QVBoxLayout(box);
    Card& c = cards_[k];
    c.title = new QLabel(box);
    c.title->setTextFormat(Qt::RichText);
    c.graph = new StatementGraphWidget(box);
    c.loops = new QPlainTextEdit(box);
    c.loops->setReadOnly(true);
    c.loops->setLineWrapMode(QPlainTextEdit::NoWrap);
    c.loops->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    c.time = new QLabel(box);
    c.time->setWordWrap(true);
    c.adopt = new QPushButton(tr("Adopt"), box);
    c.adopt->setObjectName(QStringLiteral("adopt%1").arg(k));
    c.adopt->setEnabled(false);
    v->addWidget(c.title);
    v->addWidget(c.graph);
    v->addWidget(c.loops, 1);
    v->addWidget(c.time);
    v->addWidget(c.adopt);
    row->addWidget(box, 1);
    connect(c.adopt, &QPushButton::clicked, this, [this, k] {
      if (variants_[k]) emit adopt(variants_[k]->options);
    });
  }
  time_ = new QCheckBox(tr("Time each strategy (a quick run on random inputs)"), this);
  time_->setChecked(true);
  connect(time_, &QCheckBox::toggled, this, [this] {
    key_.clear();
    if (outcome_) explore(outcome_);
  });
  status_ = new QLabel(this);
  auto* top = new QHBoxLayout;
  top->addWidget(time_);
  top->addStretch(1);
  top->addWidget(status_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(row, 1);
  connect(job_, &LatestJob::finished, this, [this] {
    status_->setText(tr("done"));
    emit explored();
  });
  for (size_t k = 0; k < cards_.size(); ++k) show_variant(int(k));
}

bool FusionView::busy() const { return job_->busy(); }

void FusionView::explore(std::shared_ptr<const CompileOutcome> outcome) {
  if (!outcome || !outcome->result || outcome->error) return;
  auto used = mapping_options_from_json(outcome->options_json);
  if (!used) return;
  in_use_ = used->outer_fusion;
  outcome_ = outcome;
  std::string key = fusion_key(*outcome);
  if (key == key_) {
    mark_in_use();
    return;
  }
  key_ = key;
  for (auto& v : variants_) v.reset();
  for (size_t k = 0; k < cards_.size(); ++k) show_variant(int(k));
  status_->setText(tr("compiling the three strategies..."));
  bool time = time_->isChecked();
  job_->submit([this, outcome, time](const std::atomic<bool>& cancel, const LatestJob::Post& post) {
    for (size_t k = 0; k < std::size(kFusionStrategies) && !cancel.load(); ++k) {
      auto v = std::make_shared<FusionVariant>(fusion_variant(*outcome, kFusionStrategies[k], time, &cancel));
      post([this, k, v] {
        variants_[k] = std::move(*v);
        show_variant(int(k));
      });
    }
  });
}

void FusionView::show_variant(int k) {
  Card& c = cards_[size_t(k)];
  const std::optional<FusionVariant>& v = variants_[size_t(k)];
  FusionStrategy s = kFusionStrategies[k];
  if (!v) {
    c.graph->set_graph(nullptr, {});
    c.loops->setPlainText({});
    c.time->setText(outcome_ ? tr("waiting...") : tr("compile a kernel to compare its fusion strategies"));
    c.adopt->setEnabled(false);
    c.title->setText(QStringLiteral("<b>%1</b>").arg(strategy_title(s)));
    return;
  }
  c.graph->set_graph(v->graph ? &*v->graph : nullptr, v->statement_text);
  QStringList lines;
  if (v->graph)
    for (const std::string& l : v->graph->loops) lines << QString::fromStdString(l);
  c.loops->setPlainText(lines.join('\n'));
  QString same;
  for (int j = 0; j < k; ++j)
    if (variants_[size_t(j)] && !v->schedule.empty() && variants_[size_t(j)]->schedule == v->schedule)
      same = tr(" — the same loops as %1").arg(strategy_title(kFusionStrategies[j]));
  QString groups = v->graph ? tr("%n fused group(s)", nullptr, v->graph->groups) : QString();
  QString time;
  std::string problem = !v->error.empty() ? v->error : v->time.error;
  if (!problem.empty()) time = tr("<span style='color:#c02020'>%1</span>").arg(QString::fromStdString(problem).toHtmlEscaped());
  else if (v->time.timed)
    time = tr("<b>%1</b> · compiled in %2 ms").arg(QString::fromStdString(quick_time_text(v->time))).arg(v->compile_ms, 0, 'f', 0);
  else time = tr("not timed · compiled in %1 ms").arg(v->compile_ms, 0, 'f', 0);
  QString dropped;
  for (const std::string& d : v->dropped) dropped += (dropped.isEmpty() ? tr("<br>without ") : QStringLiteral(", ")) + QString::fromStdString(d);
  if (!dropped.isEmpty()) dropped += tr(" (written for other bands)");
  c.time->setText(QStringLiteral("%1<br>%2%3%4").arg(groups, time, same, dropped));
  mark_in_use();
}

void FusionView::mark_in_use() {
  for (size_t k = 0; k < cards_.size(); ++k) {
    Card& c = cards_[k];
    bool used = kFusionStrategies[k] == in_use_;
    c.title->setText(QStringLiteral("<b>%1</b>%2").arg(strategy_title(kFusionStrategies[k]), used ? tr(" · in use") : QString()));
    c.adopt->setEnabled(!used && variants_[k] && variants_[k]->graph);
    c.adopt->setText(used ? tr("In use") : tr("Adopt"));
  }
}

void FusionView::set_dark(bool dark) {
  for (Card& c : cards_) c.graph->set_dark(dark);
}

}  // namespace tcs
