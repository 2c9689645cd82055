#include "views/panels/DiffPanel.h"

#include <Qsci/qsciscintilla.h>

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "views/code/CodeLinks.h"
#include "options/OptionsSchema.h"
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
  details_ = new QLabel(this);
  details_->setObjectName(QStringLiteral("diffDetails"));
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto make_side = [this](const QString& name) {
    auto* v = new QsciScintilla(this);
    v->setObjectName(name);
    v->setReadOnly(true);
    v->setUtf8(true);
    v->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    v->setWrapMode(QsciScintilla::WrapNone);
    v->markerDefine(QsciScintilla::Background, kAddedMarker);
    v->markerDefine(QsciScintilla::Background, kRemovedMarker);
    return v;
  };
  left_ = make_side(QStringLiteral("diffA"));
  right_ = make_side(QStringLiteral("diffB"));
  // The columns scroll together: the same row is the same place in both.
  for (auto [from, to] : {std::pair{left_, right_}, std::pair{right_, left_}})
    connect(from, &QsciScintilla::SCN_UPDATEUI, to, [from, to] {
      if (to->firstVisibleLine() != from->firstVisibleLine()) to->setFirstVisibleLine(from->firstVisibleLine());
    });
  set_dark(false);
  auto* top = new QHBoxLayout;
  top->addWidget(which_);
  top->addWidget(pin_);
  top->addWidget(summary_, 1);
  auto* columns = new QSplitter(Qt::Horizontal, this);
  columns->addWidget(left_);
  columns->addWidget(right_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(details_);
  layout->addWidget(columns, 1);
  connect(pin_, &QPushButton::clicked, this, &DiffPanel::pin);
  connect(which_, &QComboBox::currentIndexChanged, this, &DiffPanel::refresh);
}

void DiffPanel::set_dark(bool dark) {
  const Palette& p = tcs::palette(dark);
  for (QsciScintilla* v : {left_, right_}) {
    v->setPaper(p.paper);
    v->setColor(p.text);
    v->setMarginsBackgroundColor(p.margin);
    v->setMarginsForegroundColor(p.margin_text);
    v->setMarkerBackgroundColor(dark ? QColor(0x1f, 0x3d, 0x26) : QColor(0xdc, 0xf5, 0xdc), kAddedMarker);
    v->setMarkerBackgroundColor(dark ? QColor(0x4a, 0x22, 0x22) : QColor(0xfb, 0xdd, 0xdd), kRemovedMarker);
  }
}

void DiffPanel::follow(CompileService* service) {
  connect(service, &CompileService::compiled, this, &DiffPanel::set_current);
}

void DiffPanel::set_current(std::shared_ptr<const CompileOutcome> delivered) {
  const CompileOutcome& o = *delivered;
  if (!o.result) {  // B stays the last result with code, and says so
    if (o.final && o.error && !o.failed(ErrorKind::Cancelled) && pinned_.valid)
      summary_->setText(tr("Stale: B is the last result with code; now: %1").arg(QString::fromStdString(o.error_message())));
    return;
  }
  const CompileResult& r = *o.result;
  bool same_kernel = current_.outcome && kernel_change(*current_.outcome, o).empty();
  current_.valid = true;
  current_.texts[C] = r.text("c").text;
  // LLVM IR and assembly arrive with the final result; keep the previous ones until then.
  if (o.final || r.text("llvm").text.size()) current_.texts[LlvmIr] = r.text("llvm").text;
  if (o.final || r.text("asm").text.size()) current_.texts[Assembly] = r.text("asm").text;
  const PassSnapshot* last = r.lowering.passes.empty() ? nullptr : &r.lowering.passes.back();
  current_.texts[Schedule] = last ? schedule_tree_to_string(last->tree) : std::string();
  current_.schedule = last ? last->isl_schedule : std::string();
  current_.options = o.options_json;
  current_.compile_ms = 0;
  for (const PhaseTime& t : o.timings)
    if (t.phase != "run") current_.compile_ms += t.milliseconds;
  // A run gives B its measured time; another kernel has none until it runs.
  if (o.run) current_.run_ms = o.run->median_ms, current_.gflops = o.run->gflops;
  else if (!same_kernel) current_.run_ms = -1;
  current_.outcome = std::move(delivered);
  refresh();
}

void DiffPanel::pin() {
  pinned_ = current_;
  refresh();
}

QString DiffPanel::summary() const { return summary_->text(); }
QString DiffPanel::details() const { return details_->text(); }

QString DiffPanel::describe(const Side& s) const {
  QString sizes = s.outcome && s.outcome->def() && s.outcome->shapes
                      ? QString::fromStdString(sizes_describe(*s.outcome->def(), s.outcome->shapes->sizes))
                      : QString();
  QString run = s.run_ms < 0 ? tr("not run (Ctrl+R times it)")
                             : tr("runs in %1 ms, %2 GFLOP/s").arg(s.run_ms, 0, 'g', 4).arg(s.gflops, 0, 'f', 1);
  return tr("%1 · compiled in %2 ms · %3").arg(sizes).arg(s.compile_ms, 0, 'f', 0).arg(run);
}

void DiffPanel::refresh() {
  if (!pinned_.valid || !current_.valid) return;
  int which = which_->currentIndex();
  lines_ = diff_lines(pinned_.texts[size_t(which)], current_.texts[size_t(which)]);
  std::vector<DiffRow> rows = diff_rows(lines_);
  QString a, b;
  int added = 0, removed = 0;
  for (const DiffLine& l : lines_) {
    added += l.kind == DiffLine::Added;
    removed += l.kind == DiffLine::Removed;
  }
  for (const DiffRow& r : rows) {
    a += (r.a ? QString::fromStdString(r.a->text) : QString()) + "\n";
    b += (r.b ? QString::fromStdString(r.b->text) : QString()) + "\n";
  }
  int first = left_->firstVisibleLine();
  left_->setText(a);
  right_->setText(b);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].a && rows[i].a->kind == DiffLine::Removed) left_->markerAdd(int(i), kRemovedMarker);
    if (rows[i].b && rows[i].b->kind == DiffLine::Added) right_->markerAdd(int(i), kAddedMarker);
  }
  left_->setFirstVisibleLine(first);
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
  summary_->setText(tr("A → B: %1 lines removed, %2 added; %3%4")
                        .arg(removed)
                        .arg(added)
                        .arg(schedules_verdict_)
                        .arg(pinned_.options == current_.options ? tr(" (same options)") : QString()));
  // What differs between the two option sets, field by field, and what each side costs.
  QStringList options;
  auto oa = mapping_options_read_json(pinned_.options), ob = mapping_options_read_json(current_.options);
  if (oa && ob)
    for (const std::string& d : option_differences(*oa, *ob)) options << QString::fromStdString(d).toHtmlEscaped();
  details_->setText(tr("<b>Options that differ:</b> %1<br><b>A:</b> %2<br><b>B:</b> %3")
                        .arg(options.isEmpty() ? tr("none") : options.join(QStringLiteral("; ")),
                             describe(pinned_).toHtmlEscaped(), describe(current_).toHtmlEscaped()));
}

}  // namespace tcs
