// The schedule explorers, offscreen: the domain view's picture and scene from a known
// small model, a broken what-if schedule drawn in red, selection kept in step between the
// schedule tree, the editor, the code panes and the domain view, and a tile-size change
// that recompiles and redraws. Screenshots go to $TCS_SCREENSHOT_DIR when set.
#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "Compiler.h"
#include "views/code/CodeView.h"
#include "views/editor/SourceEditor.h"
#include "views/explorers/DomainView.h"
#include "views/explorers/FusionView.h"
#include "views/explorers/TilingView.h"
#include "views/explorers/ScheduleTreeView.h"
#include "views/panels/OptionsPanel.h"
#include "window_driver.h"

using namespace tcs;
using namespace tcs::test;

namespace {

// A result as the space service would deliver it, computed here from source and options.
std::shared_ptr<const SpaceResult> space_of(const std::string& source, const SizeMap& sizes, const std::string& options,
                                            const std::string& what_if = "") {
  CompileRequest r;
  r.source = source;
  r.sizes = sizes;
  r.options.json = options;
  auto compiled = compile(r);
  if (!compiled) qFatal("%s", compiled.error().c_str());
  SpaceQuery q;
  q.threads = 2;
  q.schedule = what_if;
  auto space = iteration_space(compiled->lowering, q);
  if (!space) qFatal("%s", space.error().c_str());
  auto result = std::make_shared<SpaceResult>();
  result->view_sizes = sizes;
  result->space = std::move(*space);
  return result;
}

int count_pixels(const QImage& image, QRgb colour) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) n += image.pixel(x, y) == colour;
  return n;
}

const char* kMatmul = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m, n) +=! A(m, k) * B(k, n) }";

}  // namespace

class ExplorersTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { start_from_first_launch("explorers_test"); }

  void domain_scene_from_a_known_model() {
    DomainView view;
    view.resize(900, 600);
    view.show();
    view.show_result(space_of(kMatmul, {{"M", 4}, {"N", 6}, {"K", 3}},
                              R"({"tile": [2, 3, 3], "tileImperfectlyNested": true, "cpu": {"vectorize": false}})"));
    // The statement with the most points is shown first: the sum S0.
    QVERIFY(view.statement_box()->currentText().startsWith("S0 ("));
    DomainChoice c = view.choice();
    c.x = 1, c.y = 0;  // n across, m down
    c.fixed = {0, 0, 0};
    view.set_choice(c);
    const DomainPicture& pic = view.picture();
    QCOMPARE(int(pic.points.size()), 4 * 6);
    QCOMPARE(int(pic.tiles.size()), 4);  // 2x3 tiles over a 4x6 plane
    QCOMPARE(pic.groups, 4);
    for (const DomainPicture::Point& p : pic.points) {
      QVERIFY(p.lit);
      QVERIFY(!p.violated);
    }
    // Each tile's box covers 2 rows and 3 columns.
    for (const DomainPicture::Box& b : pic.tiles) {
      QCOMPARE(b.y1 - b.y0, int64_t(1));
      QCOMPARE(b.x1 - b.x0, int64_t(2));
    }
    // k is fixed: the reduction's arrows run along it, so none is drawn in this slice.
    QCOMPARE(int(pic.arrows.size()), 0);
    // One item paints everything; the tile colours reach the screen.
    QCOMPARE(view.scene()->items().size(), qsizetype(1));
    view.view()->fitInView(view.scene()->sceneRect(), Qt::KeepAspectRatio);
    QImage shot = view.view()->grab().toImage();
    QVERIFY(count_pixels(shot, QColor(0x1f, 0x77, 0xb4).rgb()) > 20);  // tile 0's points
    QVERIFY(count_pixels(shot, QColor(0xff, 0x7f, 0x0e).rgb()) > 20);  // tile 1's

    // The reduction chain shows on the k-m plane; all dependences on request.
    c = view.choice();
    c.x = 2, c.y = 0, c.all_dependences = true;
    view.set_choice(c);
    QCOMPARE(int(view.picture().arrows.size()), 4 * 2);  // k -> k+1 for 4 rows, at n = 0
    for (const DomainPicture::Arrow& a : view.picture().arrows) QCOMPARE(a.x1, a.x0 + 1);

    // The scrubber lights only what has run: at time 0 a single point (the first init runs
    // before any sum, so S0 has nothing lit yet at time 0).
    c = view.choice();
    c.x = 1, c.y = 0, c.time = 0;
    view.set_choice(c);
    int lit = 0;
    for (const DomainPicture::Point& p : view.picture().points) lit += p.lit;
    QCOMPARE(lit, 0);
    c.time = view.result()->space->times - 1;
    view.set_choice(c);
    lit = 0;
    for (const DomainPicture::Point& p : view.picture().points) lit += p.lit;
    QCOMPARE(lit, 24);

    // Threads: the outer tile loop is split between the two.
    c.colour = DomainChoice::Colour::Thread;
    view.set_choice(c);
    QCOMPARE(view.picture().groups, 2);

    QTemporaryDir dir;
    QVERIFY(view.export_to(dir.filePath("d.svg")));
    QVERIFY(view.export_to(dir.filePath("d.png")));
    QFile svg(dir.filePath("d.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    QVERIFY(!QImage(dir.filePath("d.png")).isNull());
  }

  void broken_schedule_in_red() {
    DomainView view;
    view.resize(900, 500);
    view.show();
    const std::string two = "def two(float(N) A) -> (B, C) { B(i) = A(i) * 2\n C(i) = B(i) + 1 }";
    view.show_result(space_of(two, {{"N", 6}}, "", "{ S0[i] -> [1, i]; S1[i] -> [0, i] }"));
    const DomainPicture& pic = view.picture();
    QCOMPARE(int(pic.points.size()), 6);
    QCOMPARE(pic.violated, int64_t(6));
    for (const DomainPicture::Point& p : pic.points) QVERIFY(p.violated);
    QVERIFY(view.status()->text().contains("6 dependences broken by the what-if schedule"));
    view.view()->fitInView(view.scene()->sceneRect(), Qt::KeepAspectRatio);
    QImage shot = view.view()->grab().toImage();
    QVERIFY(count_pixels(shot, QColor(0xd6, 0x27, 0x28).rgb()) > 30);
    screenshot(&view, "domain_broken_schedule");

    // A legal one on a reduction: the chain's arrows, none red.
    view.show_result(space_of("def s(float(N,K) A) -> (O) { O(i) +=! A(i, k) }", {{"N", 3}, {"K", 5}}, "",
                              "{ S0_init[i] -> [i, 0, 0]; S0[i, k] -> [i, 1, 4 - k] }"));
    DomainChoice c = view.choice();
    c.all_dependences = true;
    view.set_choice(c);
    QCOMPARE(view.picture().violated, int64_t(0));
    QCOMPARE(int(view.picture().arrows.size()), 3 * 4);
    QVERIFY(view.status()->text().contains("breaks no dependence"));
  }

  void window_keeps_every_view_in_step() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(show_example(w, "conv2d.tc", QSize(1600, 1000)));
    w.domain_dock()->show();
    w.domain_dock()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(w.domain_view()->result() && w.domain_view()->result()->space, kWaitMs);
    ScheduleTreeView* tree = w.schedule_tree();
    QVERIFY(tree->topLevelItemCount() == 1);
    QVERIFY(w.domain_view()->result()->scaled_down || !w.domain_view()->result()->view_sizes.empty());
    // The tree carries the iteration space's answer: some loop carries the reduction.
    bool carries = false;
    for (int id = 0; id < 64; ++id) carries |= tree->badges(id).join(' ').contains("carries reduction");
    QVERIFY(carries);

    SourceEditor* e = w.editor();
    const std::string src = e->text().toStdString();
    long sum_pos = long(src.find("+=!")), bias_pos = long(src.find("O(n, f, h, w)  ="));

    // Tree -> editor, code panes, domain view: select the bias statement's filter row.
    QVERIFY(tree->select_statement("S1"));
    QTreeWidgetItem* s1 = tree->currentItem();
    tree->setCurrentItem(nullptr);
    tree->setCurrentItem(s1);
    QTRY_VERIFY(indicator_at(e, SourceEditor::kLinkedIndicator, bias_pos) != 0);
    QCOMPARE(indicator_at(e, SourceEditor::kLinkedIndicator, sum_pos), 0);
    QVERIFY(!w.code_view(MainWindow::CPane)->marked_lines().empty());
    QVERIFY(w.domain_view()->statement_box()->currentText().startsWith("S1 ("));

    // Editor -> tree and domain view: the caret in the sum.
    int sum_line = -1;
    for (int l = 0; l < e->lines(); ++l)
      if (e->text(l).contains("+=!")) sum_line = l;
    e->setCursorPosition(sum_line, 8);
    QTRY_VERIFY(tree->currentItem() && tree->currentItem()->data(0, ScheduleTreeView::StatementsRole).toStringList() == QStringList{"S0"});
    QTRY_VERIFY(w.domain_view()->statement_box()->currentText().startsWith("S0 ("));

    // Code pane -> tree: a loop line selects that loop's row. (Scintilla reports caret
    // moves when it paints, so the pane is brought to the front.)
    w.findChild<QDockWidget*>("codeDock")->raise();
    CodeView* c = w.code_view(MainWindow::CPane);
    int loop_line = -1;
    for (int l = 0; l < c->lines() && loop_line < 0; ++l)
      if (c->origin_of_line(l).loop_id >= 0 && c->text(l).contains("for")) loop_line = l;
    QVERIFY(loop_line >= 0);
    c->setCursorPosition(loop_line, 2);
    QTRY_COMPARE(tree->currentItem() ? tree->currentItem()->data(0, ScheduleTreeView::LoopIdRole).toInt() : -9,
                 c->origin_of_line(loop_line).loop_id);

    // Domain view -> tree and editor: click a point of the shown statement (S0).
    e->setCursorPosition(0, 0);
    w.domain_dock()->raise();
    QTest::qWait(50);
    const DomainPicture& pic = w.domain_view()->picture();
    QVERIFY(!pic.points.empty());
    QGraphicsView* v = w.domain_view()->view();
    QPoint at = v->mapFromScene(QPointF(double(pic.points[0].x) * 14, double(pic.points[0].y) * 14));
    QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, at);
    QTRY_VERIFY(indicator_at(e, SourceEditor::kLinkedIndicator, sum_pos) != 0);
    QVERIFY(tree->currentItem()->data(0, ScheduleTreeView::StatementsRole).toStringList() == QStringList{"S0"});
    QVERIFY(w.domain_view()->status()->text().contains("time"));

    // The scrubber at the middle point's time: the points before it lit, the rest not.
    QSlider* scrub = w.domain_view()->scrubber();
    const DomainPicture::Point& mid = pic.points[pic.points.size() / 2];
    const StatementSpace& shown = w.domain_view()->result()->space->statements[size_t(w.domain_view()->choice().statement)];
    scrub->setValue(int(shown.points[size_t(mid.index)].time));
    int lit = 0;
    for (const DomainPicture::Point& p : w.domain_view()->picture().points) lit += p.lit;
    QVERIFY(lit > 0 && lit < int(w.domain_view()->picture().points.size()));
    w.findChild<QDockWidget*>("scheduleTreeDock")->raise();
    tree->select_statement("S0");
    screenshot(&w, "explorers_conv2d");
    screenshot(w.domain_view(), "domain_view_conv2d");
    screenshot(tree, "schedule_tree_conv2d");
  }

  void tile_change_recompiles_and_redraws() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(show_example(w, "matmul.tc", QSize(1400, 900)));
    w.domain_dock()->show();
    w.domain_dock()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(w.domain_view()->result() && w.domain_view()->result()->space, kWaitMs);
    auto first = w.domain_view()->result();
    QString c_before = w.code_view(MainWindow::CPane)->text();
    w.options()->set_custom_json(R"({"tile": [4, 8, 16], "tileImperfectlyNested": true})");
    QVERIFY(wait_idle(w));
    QTRY_VERIFY_WITH_TIMEOUT(w.domain_view()->result() != first && w.domain_view()->result()->space, kWaitMs);
    QVERIFY(w.code_view(MainWindow::CPane)->text() != c_before);
    const IterationSpace& space = *w.domain_view()->result()->space;
    // The view's matmul at its view sizes, tiled 4 x 8 over m and n.
    const StatementSpace* s0 = nullptr;
    for (const StatementSpace& s : space.statements)
      if (s.name == "S0") s0 = &s;
    QVERIFY(s0);
    for (const auto& t : s0->tiles) QCOMPARE(t.size(), size_t(3));
    QVERIFY(s0->tiles.size() > 1);
    bool tile_badge = false;
    for (int id = 0; id < 64; ++id) tile_badge |= w.schedule_tree()->badges(id).contains("tile 8");
    QVERIFY(tile_badge);

    // Smaller view sizes, typed: the space is computed again at those.
    w.domain_view()->view_sizes_edit()->setText("M=8 K=8 N=16");
    emit w.domain_view()->view_sizes_edit()->returnPressed();
    QTRY_VERIFY_WITH_TIMEOUT(w.domain_view()->result()->view_sizes == (SizeMap{{"M", 8}, {"K", 8}, {"N", 16}}), kWaitMs);
    QVERIFY(w.domain_view()->result()->space);
    // A what-if schedule isl cannot read says so.
    w.domain_view()->what_if_edit()->setText("{ S0[m, n, k] -> ");
    emit w.domain_view()->what_if_edit()->returnPressed();
    QTRY_VERIFY_WITH_TIMEOUT(!w.domain_view()->result()->space, kWaitMs);
    QVERIFY(w.domain_view()->status()->text().contains("isl cannot read"));
  }

  // The fusion explorer on conv: three strategies compiled and timed side by side, each a
  // statement graph with its fused groups; adopting one is an options change that shows in
  // the panel, is saved in the document, undoes and redoes, and survives save and reopen.
  void fusion_strategies_compared_and_adopted() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(show_example(w, "conv2d.tc", QSize(1600, 1000)));
    std::string before = w.outcome()->options_json;
    // The default preset keeps conv's bias loop apart (Min): Max is the one to try.
    QVERIFY(before.find("\"outerScheduleFusionStrategy\": \"Min\"") != std::string::npos);
    QString c_before = w.code_view(MainWindow::CPane)->text();
    // Behind the code dock's tab the explorers do nothing: no variant is compiled or
    // timed, no iteration space enumerated, for a view nobody sees.
    FusionView* f = w.fusion_view();
    QVERIFY(!f->variants()[0] && !f->variants()[1] && !f->variants()[2] && !f->busy());
    QVERIFY(!w.domain_view()->result());
    w.fusion_dock()->show();
    w.fusion_dock()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(f->variants()[0] && f->variants()[1] && f->variants()[2] && !f->busy(), kWaitMs);
    for (int k = 0; k < 3; ++k) {
      const FusionVariant& v = *f->variants()[size_t(k)];
      QVERIFY2(v.error.empty(), v.error.c_str());
      QVERIFY(v.graph && v.time.timed && v.time.median_ms > 0 && v.time.calls >= 3);
      // S0_init, S0 (the sum) and S1 (the bias): the init feeds S0, S0 feeds S1 through O.
      QCOMPARE(v.graph->nodes.size(), size_t(3));
      bool init_to_sum = false, sum_to_bias = false;
      for (const StatementGraph::Edge& e : v.graph->edges) {
        init_to_sum |= v.graph->nodes[size_t(e.from)].name == "S0_init" && v.graph->nodes[size_t(e.to)].name == "S0";
        sum_to_bias |= v.graph->nodes[size_t(e.from)].name == "S0" && v.graph->nodes[size_t(e.to)].name == "S1" && e.tensor == "O";
      }
      QVERIFY(init_to_sum && sum_to_bias);
      // Painted: each node inside its group's outline, nodes top to bottom in run order.
      StatementGraphWidget* g = f->graph(k);
      for (size_t n = 0; n < v.graph->nodes.size(); ++n)
        QVERIFY(g->group_rect(v.graph->nodes[n].group).contains(g->node_rect(int(n))));
      QVERIFY(!f->loops(k)->toPlainText().isEmpty());
      QVERIFY(f->time_label(k)->text().contains("ms"));
    }
    // Max runs the three statements in one loop nest; Min keeps the bias apart.
    QCOMPARE(f->variants()[0]->graph->groups, 1);
    QVERIFY(f->variants()[2]->graph->groups > 1);
    QVERIFY(!f->adopt_button(2)->isEnabled());  // Min is in use
    screenshot(w.fusion_dock(), "fusion_explorer_conv2d");

    // Adopt Max: the panel, the document and the code follow.
    QVERIFY(f->adopt_button(0)->isEnabled());
    QTest::mouseClick(f->adopt_button(0), Qt::LeftButton);
    QVERIFY(wait_idle(w));
    QVERIFY(w.outcome()->options_json.find("\"outerScheduleFusionStrategy\": \"Max\"") != std::string::npos);
    QCOMPARE(w.options()->preset_box()->currentText(), QStringLiteral("custom"));
    QCOMPARE(qobject_cast<QComboBox*>(w.options()->field_widget("outerScheduleFusionStrategy"))->currentText(), QStringLiteral("Max"));
    QString text = w.editor()->text();
    QVERIFY2(text.contains("\n# options: {") && text.contains("\"outerScheduleFusionStrategy\": \"Max\""), qPrintable(text));
    QVERIFY(text.indexOf("# options:") < text.indexOf("def conv2d"));
    QVERIFY(w.editor()->isModified());
    QVERIFY(w.code_view(MainWindow::CPane)->text() != c_before);
    QTRY_VERIFY_WITH_TIMEOUT(!f->busy() && !f->adopt_button(0)->isEnabled() && f->adopt_button(2)->isEnabled(), kWaitMs);
    // The measured time follows the adopted kernel.
    w.run_with_check();
    QVERIFY(wait_idle(w));
    QVERIFY2(w.run_report()->toPlainText().contains("GFLOP/s"), qPrintable(w.run_report()->toPlainText()));

    // Undo: the line goes, the options and the code come back; redo brings them again.
    w.editor()->undo();
    QVERIFY(wait_idle(w));
    QVERIFY(!w.editor()->text().contains("# options:"));
    QCOMPARE(w.outcome()->options_json, before);
    QCOMPARE(w.options()->preset_box()->currentText(), QStringLiteral("default"));
    QCOMPARE(w.code_view(MainWindow::CPane)->text(), c_before);
    w.editor()->redo();
    QVERIFY(wait_idle(w));
    QVERIFY(w.outcome()->options_json.find("\"outerScheduleFusionStrategy\": \"Max\"") != std::string::npos);

    // Saved with the file: a new window opens it with the same options.
    QTemporaryDir dir;
    QString path = dir.path() + "/conv_max.tc";
    QVERIFY(w.save_to(path));
    MainWindow again(QStringLiteral(TCS_EXAMPLES_DIR));
    again.resize(1200, 800);
    again.show();
    QVERIFY(again.open_file(path));
    QVERIFY(wait_idle(again));
    QCOMPARE(again.outcome()->options_json, w.outcome()->options_json);
    QCOMPARE(again.options()->preset_box()->currentText(), QStringLiteral("custom"));
    QVERIFY(!again.editor()->isModified());
    // A preset chosen in the panel replaces the line; the default preset removes it.
    again.options()->set_preset("naive");
    QVERIFY(wait_idle(again));
    QVERIFY(again.editor()->text().contains("# options: naive\n"));
    again.options()->set_preset("default");
    QVERIFY(wait_idle(again));
    QVERIFY(!again.editor()->text().contains("# options:"));
  }

  // The tiling explorer on conv: a spin box per loop of the tiled band; a new size
  // recompiles the code, redraws the domain view and the footprints, and is an options
  // change like any other. Footprints are worked out by hand for matmul.
  void tile_sizes_from_the_tiling_explorer() {
    MainWindow w(QStringLiteral(TCS_EXAMPLES_DIR));
    QVERIFY(show_example(w, "conv2d.tc", QSize(1600, 1000)));
    w.tiling_dock()->show();
    w.tiling_dock()->raise();
    TilingView* t = w.tiling_view();
    QTRY_VERIFY_WITH_TIMEOUT(!t->bands().empty() && !t->busy() && !t->chart()->rows().empty(), kWaitMs);
    // S0_init's band over n, f, h, w and the sum's over those and c, kh, kw share one tile.
    int b = 0;
    for (size_t i = 0; i < t->bands().size(); ++i)
      if (t->bands()[i].loop_ids.size() > t->bands()[size_t(b)].loop_ids.size()) b = int(i);
    const TilingBand band = t->bands()[size_t(b)];
    QCOMPARE(band.loop_ids.size(), size_t(7));
    QVERIFY(band.tiled);
    QCOMPARE(t->size_box(b, 0)->value(), int(band.sizes[0]));
    // Every row within the chart, coloured by the cache it fits in.
    for (size_t r = 0; r < t->chart()->rows().size(); ++r) QVERIFY(t->chart()->bar_rect(int(r)).width() > 0);
    screenshot(w.tiling_dock(), "tiling_explorer_conv2d_before");

    // Change the tile of kw, the band's last loop: recompiled, the band shows the new size.
    int m = 6;
    int want = int(band.sizes[size_t(m)]) == 2 ? 1 : 2;
    w.domain_dock()->show();
    QString c_before = w.code_view(MainWindow::CPane)->text();
    t->size_box(b, m)->setValue(want);
    QVERIFY(wait_idle(w));
    QVERIFY2(w.code_view(MainWindow::CPane)->text() != c_before, qPrintable(t->status()->text() + "\n" + QString::fromStdString(w.outcome()->options_json)));
    QTRY_VERIFY_WITH_TIMEOUT(int(t->bands().size()) > b && t->bands()[size_t(b)].sizes[size_t(m)] == want, kWaitMs);
    QVERIFY(t->bands()[size_t(b)].sizes[0] == band.sizes[0]);  // the other loops keep theirs
    QVERIFY(w.outcome()->options_json.find("\"tile\": [") != std::string::npos);
    QVERIFY(w.editor()->text().contains("# options: {"));
    QTRY_VERIFY_WITH_TIMEOUT(!t->busy() && !t->chart()->rows().empty(), kWaitMs);
    // The new tiling's time beside the one before it.
    QVERIFY2(t->time().timed && t->time().median_ms > 0, t->time().error.c_str());
    QVERIFY2(t->time_label()->text().contains("This tiling") && t->time_label()->text().contains("The one before"),
             qPrintable(t->time_label()->text()));
    screenshot(w.tiling_dock(), "tiling_explorer_conv2d");
    w.editor()->undo();
    QVERIFY(wait_idle(w));
    QTRY_VERIFY_WITH_TIMEOUT(t->bands()[size_t(b)].sizes == band.sizes, kWaitMs);
    // A size the register tile does not fit in is refused with the reason, nothing applied.
    std::string now = w.outcome()->options_json;
    t->size_box(b, 3)->setValue(2);  // w: the register tile takes 16 of it
    QVERIFY(t->status()->text().contains("registerTile"));
    QVERIFY(wait_idle(w));
    QCOMPARE(w.outcome()->options_json, now);

    // matmul tiled 8 x 16 x 4 (m, n, k): A's tile 8x4, B's 4x16, C's 8x16 floats.
    auto outcome = std::make_shared<CompileOutcome>();
    CompileRequest r;
    r.source = kMatmul;
    r.sizes = {{"M", 64}, {"N", 64}, {"K", 64}};
    r.options.json = R"({"tile": [8, 16, 4], "tileImperfectlyNested": true,
                         "cpu": {"vectorize": false, "pack": [{"tensor": "B", "depth": 3}]}})";
    auto compiled = compile(r);
    QVERIFY(compiled);
    outcome->checked = compiled->setup.checked;
    outcome->entry = 0;
    outcome->shapes = compiled->setup.shapes;
    outcome->options_json = mapping_options_to_json(compiled->options);
    outcome->result = std::make_shared<CompileResult>(std::move(*compiled));
    auto rows = footprint_rows(*outcome);
    QVERIFY2(rows, rows ? "" : rows.error().c_str());
    std::map<std::string, int64_t> s0;
    for (const FootprintRow& row : *rows)
      if (row.statement == "S0") s0[row.tensor] = row.bytes;
    QCOMPARE(s0["A"], int64_t(8 * 4 * 4));
    QCOMPARE(s0["B"], int64_t(4 * 16 * 4));
    QCOMPARE(s0["C"], int64_t(8 * 16 * 4));
    QCOMPARE(s0[""], int64_t((32 + 64 + 128) * 4));
    // B is packed inside the three tile loops: each tile copies its 4x16 block.
    for (const FootprintRow& row : *rows)
      QCOMPARE(row.packed_bytes, row.tensor == "B" || (row.statement == "S0" && row.tensor.empty()) ? int64_t(4 * 16 * 4) : int64_t(0));
    FootprintChart chart;
    chart.resize(600, 200);
    chart.set_rows(*rows, HostCaches{1024, 4096, 0, "test"});
    for (size_t i = 0; i < chart.rows().size(); ++i) {
      const FootprintRow& row = chart.rows()[i];
      QColor want_colour = row.bytes <= 1024 ? QColor(0x22, 0xa0, 0x55) : row.bytes <= 4096 ? QColor(0xe0, 0xa0, 0x20) : QColor(0xd0, 0x40, 0x40);
      QCOMPARE(chart.bar_colour(int(i)), want_colour);
      QVERIFY(std::abs(chart.bar_rect(int(i)).right() - chart.x_of(row.bytes)) < 1e-6);
    }
    QVERIFY(chart.x_of(1024) < chart.x_of(4096));
  }
};

QTEST_MAIN(ExplorersTest)
#include "explorers_test.moc"
