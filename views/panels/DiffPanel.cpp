#include "views/panels/DiffPanel.h"

#include <Qsci/qsciscintilla.h>

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "views/code/CodeLinks.h"
#include "views/service/CompileService.h"
#include "views/theme/Theme.h"

namespace tcs {

namespace {
constexpr int kAddedMarker = 1, kRemovedMarker = 2;
}

DiffPanel::DiffPanel(QWidget* parent) : QWidget(parent) {
  which_ = new QComboBox(this);
  which_->addItems({tr("C"), tr("LLVM IR"), tr("Assembly"), tr("Schedule tree")});
  pin_ = new QPushButton(tr("Pin as A"), this);
  pin_->setToolTip(tr("Keep the current result as A; the live result is B"));
  summary_ = new QLabel(tr("Pin a result as A, then change the options: the diff shows what changed."), this);
  summary_->setWordWrap(true);
  view_ = new QsciScintilla(this);
  view_->setReadOnly(true);
  view_->setUtf8(true);
  view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  view_->markerDefine(QsciScintilla::Background, kAddedMarker);
  view_->markerDefine(QsciScintilla::Background, kRemovedMarker);
  set_dark(false);
  auto* top = new QHBoxLayout;
  top->addWidget(which_);
  top->addWidget(pin_);
  top->addWidget(summary_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(view_, 1);
  connect(pin_, &QPushButton::clicked, this, &DiffPanel::pin);
  connect(which_, &QComboBox::currentIndexChanged, this, &DiffPanel::refresh);
}

void DiffPanel::set_dark(bool dark) {
  const Palette& p = tcs::palette(dark);
  view_->setPaper(p.paper);
  view_->setColor(p.text);
  view_->setMarkerBackgroundColor(dark ? QColor(0x1f, 0x3d, 0x26) : QColor(0xdc, 0xf5, 0xdc), kAddedMarker);
  view_->setMarkerBackgroundColor(dark ? QColor(0x4a, 0x22, 0x22) : QColor(0xfb, 0xdd, 0xdd), kRemovedMarker);
}

void DiffPanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this, [this](std::shared_ptr<const CompileOutcome> o) { set_current(*o); });
}

void DiffPanel::set_current(const CompileOutcome& o) {
  if (!o.result) return;
  const CompileResult& r = *o.result;
  current_.valid = true;
  current_.texts[C] = r.text("c").text;
  // LLVM IR and assembly arrive with the final result; keep the previous ones until then.
  if (o.final || r.text("llvm").text.size()) current_.texts[LlvmIr] = r.text("llvm").text;
  if (o.final || r.text("asm").text.size()) current_.texts[Assembly] = r.text("asm").text;
  const PassSnapshot* last = r.lowering.passes.empty() ? nullptr : &r.lowering.passes.back();
  current_.texts[Schedule] = last ? schedule_tree_to_string(last->tree) : std::string();
  current_.schedule = last ? last->isl_schedule : std::string();
  current_.options = o.options_json;
  refresh();
}

void DiffPanel::pin() {
  pinned_ = current_;
  refresh();
}

QString DiffPanel::summary() const { return summary_->text(); }

void DiffPanel::refresh() {
  if (!pinned_.valid || !current_.valid) return;
  int which = which_->currentIndex();
  lines_ = diff_lines(pinned_.texts[size_t(which)], current_.texts[size_t(which)]);
  QString text;
  int added = 0, removed = 0;
  for (const DiffLine& l : lines_) {
    text += (l.kind == DiffLine::Added ? "+ " : l.kind == DiffLine::Removed ? "- " : "  ") + QString::fromStdString(l.text) + "\n";
    added += l.kind == DiffLine::Added;
    removed += l.kind == DiffLine::Removed;
  }
  int first = view_->firstVisibleLine();
  view_->setText(text);
  view_->setFirstVisibleLine(first);
  for (size_t i = 0; i < lines_.size(); ++i) {
    if (lines_[i].kind == DiffLine::Added) view_->markerAdd(int(i), kAddedMarker);
    if (lines_[i].kind == DiffLine::Removed) view_->markerAdd(int(i), kRemovedMarker);
  }
  if (pinned_.schedule != compared_a_ || current_.schedule != compared_b_) {
    compared_a_ = pinned_.schedule;
    compared_b_ = current_.schedule;
    schedules_verdict_.clear();
    if (!compared_a_.empty() && !compared_b_.empty()) {
      auto same = schedules_equivalent(compared_a_, compared_b_);
      schedules_verdict_ = !same ? tr("schedules not compared: %1").arg(QString::fromStdString(same.error()))
                           : *same ? tr("the schedules are equivalent")
                                   : tr("the schedules differ");
    }
  }
  const QString& schedules = schedules_verdict_;
  summary_->setText(tr("A → B: %1 lines removed, %2 added; %3%4")
                        .arg(removed)
                        .arg(added)
                        .arg(schedules)
                        .arg(pinned_.options == current_.options ? tr(" (same options)") : QString()));
}

}  // namespace tcs
