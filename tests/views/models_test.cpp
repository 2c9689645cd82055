// The IDE's models under QAbstractItemModelTester, the compile service's "newest job
// wins" contract, and the plain pieces behind the views: line diff and code links.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "views/code/CodeLinks.h"
#include "views/service/CompileService.h"
#include "views/models/DiagnosticsModel.h"
#include "views/panels/LineDiff.h"
#include "views/models/PassListModel.h"
#include "views/models/SizesModel.h"
#include "lang/Frontend.h"

using namespace tcs;

Q_DECLARE_METATYPE(std::shared_ptr<const tcs::CompileOutcome>)

namespace {

const char* kMatmul =
    "# sizes: M=16 K=32 N=24\n"
    "def matmul(float(M,K) A, float(K,N) B) -> (C) {\n"
    "    C(m, n) +=! A(m, k) * B(k, n)\n"
    "}\n";

CompileJob job_for(const std::string& text) {
  CompileJob job;
  job.file_name = "t.tc";
  job.text = text;
  return job;
}

}  // namespace

class ModelsTest : public QObject {
  Q_OBJECT

 private slots:
  void diagnostics_model_is_a_valid_model() {
    DiagnosticsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto c = check_source("t.tc", "def f(float(N) A) -> (O) {\n  O(i) = A(i) * Bx(i)\n  O(i) = O(i) @ 2\n}\n");
    model.set_diagnostics(c->file, c->diagnostics);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, DiagnosticsModel::LineColumnColumn).data().toString(), QStringLiteral("2:17"));
    QVERIFY(model.index(0, DiagnosticsModel::MessageColumn).data().toString().contains("Bx"));
    model.set_diagnostics(c->file, {});
    QCOMPARE(model.rowCount(), 0);
  }

  void sizes_model_edits_and_resets() {
    SizesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &SizesModel::overrides_changed);
    model.set_parameters({"M", "K"}, {{"M", 16}, {"K", 32}}, {{"M", 16}, {"K", 32}});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, SizesModel::ValueColumn).data().toLongLong(), 32);
    QCOMPARE(model.index(1, SizesModel::SourceColumn).data().toString(), QStringLiteral("# sizes"));
    QVERIFY(model.flags(model.index(1, SizesModel::ValueColumn)) & Qt::ItemIsEditable);
    QVERIFY(!(model.flags(model.index(1, SizesModel::NameColumn)) & Qt::ItemIsEditable));
    QVERIFY(!model.setData(model.index(1, SizesModel::ValueColumn), 0));       // sizes are >= 1
    QVERIFY(!model.setData(model.index(1, SizesModel::ValueColumn), "many"));
    QVERIFY(model.setData(model.index(1, SizesModel::ValueColumn), 64));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.overrides().at("K"), 64);
    QCOMPARE(model.index(1, SizesModel::SourceColumn).data().toString(), QStringLiteral("edited"));
    model.set_parameters({"M", "K", "N"}, {}, {{"M", 16}, {"K", 64}, {"N", 2}});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(2, SizesModel::SourceColumn).data().toString(), QStringLiteral("inferred"));
    model.clear_overrides();
    QVERIFY(model.overrides().empty());
    QCOMPARE(changed.count(), 2);
  }

  void pass_list_and_changed_only_filter() {
    auto out = prepare_and_compile(kMatmul);
    QVERIFY(out);
    PassListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ChangedPassFilter filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filter_tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_passes(out->lowering.passes);
    QCOMPARE(model.rowCount(), int(compile_pass_names().size()));
    int changed = 0;
    for (int r = 0; r < model.rowCount(); ++r) changed += model.index(r).data(PassListModel::ChangedRole).toBool();
    QVERIFY(changed >= 2);                  // the schedule and tiling passes change it
    QVERIFY(changed < model.rowCount());    // the dependence analysis does not
    QCOMPARE(filter.rowCount(), model.rowCount());
    filter.set_changed_only(true);
    QCOMPARE(filter.rowCount(), changed);
    for (int r = 0; r < filter.rowCount(); ++r) QVERIFY(filter.index(r, 0).data(PassListModel::ChangedRole).toBool());
    QVERIFY(model.index(0).data().toString().contains(QString::fromStdString(out->lowering.passes[0].pass)));
    model.set_passes(out->lowering.passes);  // same passes again: rows stay, data refreshes
    QCOMPARE(filter.rowCount(), changed);
    model.set_passes({});
    QCOMPARE(filter.rowCount(), 0);
  }

  void service_delivers_only_the_newest_job() {
    qRegisterMetaType<std::shared_ptr<const CompileOutcome>>();
    CompileService service;
    std::vector<std::shared_ptr<const CompileOutcome>> got;
    connect(&service, &CompileService::compiled, this, [&](std::shared_ptr<const CompileOutcome> o) { got.push_back(o); });
    // A burst of edits: each submit cancels or replaces the one before.
    uint64_t last = 0;
    for (int n = 1; n <= 6; ++n) {
      std::string text = kMatmul;
      text.replace(text.find("N=24"), 4, "N=" + std::to_string(8 * n));
      last = service.submit(job_for(text));
    }
    QTRY_VERIFY_WITH_TIMEOUT(!got.empty() && got.back()->final && got.back()->id == last, 30000);
    for (const auto& o : got) QCOMPARE(o->id, last);  // nothing stale reached the GUI
    const CompileOutcome& o = *got.back();
    QVERIFY(!o.error);
    QCOMPARE(o.shapes->sizes.at("N"), 48);
    QVERIFY(o.result->text("c").text.find("void matmul") != std::string::npos);
    QVERIFY(!o.result->text("llvm").text.empty());
    QVERIFY(!o.result->text("asm").text.empty());
    QVERIFY(!service.busy());
    // The C text arrives before the LLVM phases: a first, non-final delivery.
    QVERIFY(got.size() >= 2 && !got.front()->final && got.front()->result && got.front()->result->text("llvm").text.empty());
  }

  void service_reports_problems_as_values() {
    CompileService service;
    std::shared_ptr<const CompileOutcome> last;
    connect(&service, &CompileService::compiled, this, [&](std::shared_ptr<const CompileOutcome> o) { last = o; });
    auto wait_for = [&](uint64_t id) { QTRY_VERIFY_WITH_TIMEOUT(last && last->id == id && last->final, 30000); };

    wait_for(service.submit(job_for("def f(float(N) A) -> (O) {\n  O(i) = A(i) * Bx(i)\n}\n")));
    QVERIFY(last->failed(ErrorKind::Source));
    QCOMPARE(last->error_message(), std::string("the source has errors"));
    QCOMPARE(int(last->checked->diagnostics.size()), 1);
    QVERIFY(!last->result);

    CompileJob sizes = job_for(kMatmul);
    sizes.sizes["K"] = 0;  // impossible: an empty range
    wait_for(service.submit(sizes));
    QVERIFY(last->failed(ErrorKind::Sizes));
    QVERIFY(!last->result);

    CompileJob options = job_for(kMatmul);
    options.options_json = "{\"tile\": [0]}";
    wait_for(service.submit(options));
    QVERIFY2(last->failed(ErrorKind::Options), last->error_message().c_str());
    QVERIFY(last->error_message().find("tile") != std::string::npos);

    // The compiler's notes on the options reach Problems as notes on the def's name: a
    // cache tile of rows that is no multiple of the register tile's.
    CompileJob straddling = job_for(kMatmul);
    straddling.options_json = "{\"outerScheduleFusionStrategy\": \"Min\", \"tile\": [8, 16, 8], \"registerTile\": [6, 8], "
                              "\"cpu\": {\"registerAccumulate\": true}}";
    wait_for(service.submit(straddling));
    QVERIFY2(!last->error, last->error_message().c_str());
    std::vector<Diagnostic> problems = outcome_problems(*last);
    auto note = std::find_if(problems.begin(), problems.end(), [](const Diagnostic& d) { return d.severity == Severity::Note; });
    QVERIFY(note != problems.end());
    QVERIFY2(note->message.find("compiler: tile[0] (8) is not a multiple of registerTile[0] (6)") == 0, note->message.c_str());
    QCOMPARE(last->checked->file.text().substr(note->range.begin, 6), std::string("matmul"));
    QVERIFY(std::none_of(problems.begin(), problems.end(), [](const Diagnostic& d) { return d.severity != Severity::Note; }));
    wait_for(service.submit(job_for(kMatmul)));  // the default makes none
    QVERIFY(outcome_problems(*last).empty());

    CompileJob run = job_for(kMatmul);
    run.run = true;
    wait_for(service.submit(run));
    QVERIFY2(last->run.has_value(), last->error_message().c_str());
    QVERIFY(last->run->ok);
    QVERIFY(last->run->gflops > 0);
    QVERIFY(last->run->worst_error < 1e-3);
    QCOMPARE(int(last->run->lines.size()), 1);
  }

  void line_diff_marks_added_and_removed_lines() {
    auto d = diff_lines("a\nb\nc\nd\n", "a\nc\nx\nd\n");
    std::string shape;
    for (const DiffLine& l : d) shape += l.kind == DiffLine::Same ? '=' : l.kind == DiffLine::Added ? '+' : '-';
    QCOMPARE(QString::fromStdString(shape), QStringLiteral("=-=+="));
    QCOMPARE(d[1].text, std::string("b"));
    QCOMPARE(d[3].text, std::string("x"));
    QCOMPARE(int(diff_lines("same\n", "same\n").size()), 1);
    auto big = diff_lines("a\nb\n", "c\nd\n", 1);  // beyond the cell budget: all different
    QCOMPARE(int(big.size()), 4);
  }

  void code_links_follow_node_ids() {
    auto out = prepare_and_compile(kMatmul);
    QVERIFY(out);
    const LoopNest& nest = out->lowering.nest;
    CodeLinks links(nest);
    // Every line of C that runs a statement maps back to source statement 0 (the only one),
    // and a loop line maps to the statements inside it.
    int stmt_lines = 0, loop_lines = 0;
    for (const LineOrigin& o : out->text("c").lines) {
      if (o.stmt >= 0) {
        ++stmt_lines;
        QVERIFY(links.generated_by(o, 0));
        QCOMPARE(links.source_statements(o), std::set<int>{0});
      } else if (o.loop_id >= 0) {
        ++loop_lines;
        QCOMPARE(links.source_statements(o), std::set<int>{0});
        QVERIFY(!links.generated_by(o, 0));
      }
    }
    // The initialisation, folded into the register tiles (a line saying so), and
    // C(m,n) = (k == 0 ? 0 : C(m,n)) + ..., in a full and a partial register tile's code
    // where the rows do not fill whole register tiles (16 rows in tiles of 12).
    QVERIFY(stmt_lines >= 2);
    QVERIFY(loop_lines >= 4);
    GeneratedText tree = schedule_tree_text(out->lowering.passes.back().tree, nest);
    QCOMPARE(tree.lines.size(), size_t(std::count(tree.text.begin(), tree.text.end(), '\n')));
    bool some_band_member = false;
    for (const LineOrigin& o : tree.lines) some_band_member |= o.loop_id >= 0;
    QVERIFY(some_band_member);
  }

 private:
  // The compiler, as the service calls it, for tests that need a real result.
  static std::optional<CompileResult> prepare_and_compile(const std::string& text) {
    KernelSetup setup;
    MappingOptions options;
    auto out = prepare_outcome(job_for(text), &setup, &options);
    if (out->error || !out->shapes) return std::nullopt;
    auto r = compile_kernel(setup, options, {});
    if (!r) return std::nullopt;
    return std::move(*r);
  }
};

QTEST_MAIN(ModelsTest)
#include "models_test.moc"
