// The comprehension editor on its own: the lexer's styles as Scintilla stores them
// (SCI_COLOURISE, then SCI_GETSTYLEAT), folding, squiggle ranges, completion lists, call
// tips, hovers, toggle comment, find and replace, and the generated-code panes' colours.
#include <QLineEdit>
#include <QtTest>

#include "views/code/CodeLexer.h"
#include "views/code/CodeView.h"
#include "views/editor/FindBar.h"
#include "views/editor/SourceEditor.h"
#include "views/editor/SymbolIndex.h"
#include "views/editor/TcLexer.h"
#include "lang/Frontend.h"

using namespace tcs;

namespace {

const char* kSource =
    "# größe — a non-ASCII comment\n"
    "# sizes: M=4 K=8\n"
    "def mm(float(M,K) A, float(K) B) -> (C) {\n"
    "    C(m) +=! exp(A(m, k)) * B(k) + 2.5\n"
    "}\n";

long offset_of(const std::string& text, const std::string& needle, int occurrence = 0) {
  size_t pos = text.find(needle);
  while (occurrence-- > 0 && pos != std::string::npos) pos = text.find(needle, pos + 1);
  return pos == std::string::npos ? -1 : long(pos);
}

int style_at(SourceEditor& e, long pos) { return int(e.SendScintilla(QsciScintilla::SCI_GETSTYLEAT, pos)); }

void colourise(QsciScintilla& e) { e.SendScintilla(QsciScintilla::SCI_COLOURISE, 0L, -1L); }

}  // namespace

class EditorTest : public QObject {
  Q_OBJECT

 private slots:
  void lexer_styles_every_kind_of_word() {
    SourceEditor e;
    e.setText(QString::fromUtf8(kSource));
    colourise(e);
    std::string t = kSource;
    struct Case {
      std::string word;
      int occurrence;
      int style;
    } cases[] = {
        {"# sizes", 0, TcLexer::Comment},  {"größe", 0, TcLexer::Comment},  {"def", 0, TcLexer::Keyword},
        {"mm(", 0, TcLexer::Default},       {"float", 0, TcLexer::Type},      {"M,K", 0, TcLexer::SizeParam},
        {"A,", 0, TcLexer::Tensor},        {"C(m)", 0, TcLexer::Tensor},     {"m)", 0, TcLexer::Index},
        {"+=!", 0, TcLexer::ReductionOp},  {"exp", 0, TcLexer::Builtin},     {"k))", 0, TcLexer::Index},
        {"2.5", 0, TcLexer::Number},       {"*", 0, TcLexer::Operator},      {"{", 0, TcLexer::Operator},
    };
    for (const Case& c : cases) {
      long pos = offset_of(t, c.word, c.occurrence);
      QVERIFY2(pos >= 0, c.word.c_str());
      QCOMPARE(style_at(e, pos), c.style);
    }
    // Bytes after the multi-byte characters keep their styles (Scintilla counts bytes).
    QCOMPARE(style_at(e, long(t.find("comment"))), int(TcLexer::Comment));
    QCOMPARE(style_at(e, long(t.find("def"))), int(TcLexer::Keyword));
  }

  void lexer_folds_per_def() {
    SourceEditor e;
    e.setText(QString::fromUtf8(kSource) + "\ndef g(float(N) X) -> (Y) {\n    Y(i) = X(i)\n}\n");
    colourise(e);
    auto level = [&](int line) { return int(e.SendScintilla(QsciScintilla::SCI_GETFOLDLEVEL, long(line))); };
    QVERIFY(level(2) & QsciScintilla::SC_FOLDLEVELHEADERFLAG);   // def mm
    QVERIFY(!(level(3) & QsciScintilla::SC_FOLDLEVELHEADERFLAG));
    QCOMPARE(level(3) & QsciScintilla::SC_FOLDLEVELNUMBERMASK, QsciScintilla::SC_FOLDLEVELBASE + 1);
    QCOMPARE(level(0) & QsciScintilla::SC_FOLDLEVELNUMBERMASK, QsciScintilla::SC_FOLDLEVELBASE);
    QVERIFY(level(6) & QsciScintilla::SC_FOLDLEVELHEADERFLAG);   // def g
    e.foldLine(2);
    QVERIFY(!e.SendScintilla(QsciScintilla::SCI_GETLINEVISIBLE, 3L));
    QVERIFY(e.SendScintilla(QsciScintilla::SCI_GETLINEVISIBLE, 7L));
  }

  void squiggles_cover_exactly_the_diagnostic_range() {
    SourceEditor e;
    std::string text = "# ünïcode\ndef f(float(N) A) -> (O) {\n  O(i) = A(i) * Bx(i)\n}\n";
    e.setText(QString::fromStdString(text));
    auto checked = check_source("t.tc", text);
    QCOMPARE(int(checked->diagnostics.size()), 1);
    e.show_diagnostics(checked->diagnostics);
    long begin = long(text.find("Bx"));
    auto on = [&](long pos) { return e.SendScintilla(QsciScintilla::SCI_INDICATORVALUEAT, SourceEditor::kErrorIndicator, pos) != 0; };
    QVERIFY(!on(begin - 1));
    QVERIFY(on(begin));
    QVERIFY(on(begin + 1));
    QVERIFY(!on(begin + 2));
    QCOMPARE(e.SendScintilla(QsciScintilla::SCI_INDICATOREND, SourceEditor::kErrorIndicator, begin), begin + 2);
    // The hover over the squiggle says what is wrong.
    QVERIFY(e.hover_text(uint32_t(begin)).contains("unknown tensor or function 'Bx'"));
  }

  void warnings_use_their_own_indicator() {
    SourceEditor e;
    std::string text = "def f(float(N) A, float(N) Unused) -> (O) {\n  O(i) = A(i)\n}\n";
    e.setText(QString::fromStdString(text));
    auto checked = check_source("t.tc", text);
    QVERIFY(!checked->has_errors());
    QVERIFY(!checked->diagnostics.empty());
    e.show_diagnostics(checked->diagnostics);
    long pos = long(checked->diagnostics[0].range.begin);
    QVERIFY(e.SendScintilla(QsciScintilla::SCI_INDICATORVALUEAT, SourceEditor::kWarningIndicator, pos) != 0);
    QCOMPARE(int(e.SendScintilla(QsciScintilla::SCI_INDICATORVALUEAT, SourceEditor::kErrorIndicator, pos)), 0);
  }

  void completion_offers_names_in_scope() {
    SourceEditor e;
    std::string text = "def f(float(N) Alpha, float(N) Beta) -> (Out) {\n  Out(idx) = Alpha(idx) + ex\n}\n";
    e.setText(QString::fromStdString(text));
    long after_ex = long(text.find("ex\n") + 2);
    e.SendScintilla(QsciScintilla::SCI_GOTOPOS, after_ex);
    QStringList words = e.completion_words();
    QVERIFY(words.contains("exp"));
    for (const QString& w : words) QVERIFY2(w.startsWith("ex", Qt::CaseInsensitive), qPrintable(w));
    // With no prefix: the statement's indices first, then tensors and sizes, then builtins.
    std::string open = "def f(float(N) Alpha, float(N) Beta) -> (Out) {\n  Out(idx) = Alpha(idx) + Beta(idx)\n}\n";
    e.setText(QString::fromStdString(open));
    e.SendScintilla(QsciScintilla::SCI_GOTOPOS, long(open.find("+ ") + 2));
    words = e.completion_words();
    QVERIFY(words.size() > 5);
    QCOMPARE(words.value(0), QStringLiteral("idx"));
    for (const char* w : {"Alpha", "Beta", "Out", "N", "exp", "tanh"}) QVERIFY2(words.contains(w), w);
    e.show_completions();
    QVERIFY(e.SendScintilla(QsciScintilla::SCI_AUTOCACTIVE) != 0);
    QCOMPARE(e.completion_tip(), QStringLiteral("index idx in 0 .. N - 1"));  // the first item's kind and range
  }

  // Issue 11, item 12: each item's kind with its type or signature, the statement's own
  // names first, and the long tail of math builtins only once typed.
  void completion_kinds_ranking_and_the_long_tail() {
    std::string text = "def f(float(N) Alpha, float(N) Beta, float(N) Gamma) -> (Out) {\n"
                       "  Out(idx) = Alpha(idx) + Beta(idx)\n}\n";
    auto checked = std::shared_ptr<const CheckedFile>(check_source("c.tc", text));
    SymbolIndex index(checked);
    uint32_t at = uint32_t(text.find("+ ") + 2);
    std::vector<Completion> all = index.completions(at);
    auto rank = [&](const std::string& name) {
      for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == name) return int(i);
      return -1;
    };
    QCOMPARE(all[0].kind, WordClass::Index);
    QVERIFY(rank("Alpha") < rank("Gamma"));  // the statement names Alpha, not Gamma
    QVERIFY(rank("Out") < rank("Gamma"));
    QVERIFY(rank("Gamma") < rank("N") && rank("N") < rank("exp"));
    QCOMPARE(all[size_t(rank("Alpha"))].detail, std::string("input Alpha: float32 (N)"));
    QCOMPARE(all[size_t(rank("N"))].kind, WordClass::SizeParam);
    QVERIFY(all[size_t(rank("exp"))].detail.find("exp(x1)") != std::string::npos);
    QCOMPARE(rank("cyl_bessel_i0"), -1);  // rare: hidden until typed
    QCOMPARE(rank("lgamma"), -1);
    std::vector<Completion> typed = index.completions(at, "cy");
    QCOMPARE(int(typed.size()), 2);
    QCOMPARE(typed[0].name, std::string("cyl_bessel_i0"));
    QCOMPARE(index.completions(at, "lg").at(0).name, std::string("lgamma"));
  }

  void misspelt_names_get_a_suggestion_and_a_gutter_marker() {
    std::string text = "def f(float(N) Alpha) -> (Out) {\n  Out(i) = Alpah(i)\n}\n";
    auto checked = std::shared_ptr<const CheckedFile>(check_source("m.tc", text));
    int errors = 0;
    for (const Diagnostic& d : checked->diagnostics) {
      if (d.severity != Severity::Error) continue;
      ++errors;
      QVERIFY2(d.message.find("did you mean 'Alpha'?") != std::string::npos, d.message.c_str());
    }
    QCOMPARE(errors, 1);
    SourceEditor e;
    e.setText(QString::fromStdString(text));
    e.show_diagnostics(checked->diagnostics);
    QCOMPARE(e.marked_lines(SourceEditor::kErrorMarker), std::vector<int>{1});
    QCOMPARE(e.marked_lines(SourceEditor::kWarningMarker), std::vector<int>{0});  // 'Alpha' is never read
    e.show_diagnostics({});
    QVERIFY(e.marked_lines(SourceEditor::kErrorMarker).empty());
  }

  void call_tip_for_builtins() {
    SourceEditor e;
    e.setText("def f(float(N) A) -> (O) {\n  O(i) = \n}\n");
    e.show();
    QVERIFY(QTest::qWaitForWindowExposed(&e));
    e.setCursorPosition(1, 9);
    e.setFocus();
    QTest::keyClicks(e.viewport(), "tanh(");
    QVERIFY(e.SendScintilla(QsciScintilla::SCI_CALLTIPACTIVE) != 0);
  }

  void hover_explains_tensors_indices_and_sizes() {
    auto checked = std::shared_ptr<const CheckedFile>(check_source("h.tc", kSource));
    SymbolIndex index(checked);
    std::string t = kSource;
    const SemaDef& def = checked->defs[0];
    auto shapes = shapes_evaluate(def, sizes_from_header(t));
    QVERIFY(bool(shapes));
    auto hover = [&](const std::string& needle, int occurrence = 0) {
      return QString::fromStdString(index.describe(uint32_t(offset_of(t, needle, occurrence)), &*shapes, 0));
    };
    QCOMPARE(hover("A,"), QStringLiteral("input A: float32 (M, K) = (4, 8)"));
    QCOMPARE(hover("C(m)"), QStringLiteral("output C: float32 (M) = (4)"));
    QVERIFY(hover("k))").startsWith("reduction index k in 0 .. K - 1 = 0 .. 7"));
    QVERIFY(hover("m)").startsWith("index m in 0 .. M - 1 = 0 .. 3"));
    QCOMPARE(hover("M,K"), QStringLiteral("size M = 4"));
    QVERIFY(hover("exp").startsWith("builtin exp"));
    QCOMPARE(hover("def"), QString());
  }

  void toggle_comment_adds_and_removes() {
    SourceEditor e;
    e.setText("def f(float(N) A) -> (O) {\n    O(i) = A(i)\n}\n");
    e.setCursorPosition(1, 3);
    e.toggle_comment();
    QCOMPARE(e.text(1), QStringLiteral("    # O(i) = A(i)\n"));
    e.toggle_comment();
    QCOMPARE(e.text(1), QStringLiteral("    O(i) = A(i)\n"));
    e.undo();
    QCOMPARE(e.text(1), QStringLiteral("    # O(i) = A(i)\n"));
  }

  void find_and_replace() {
    SourceEditor e;
    e.setText("def f(float(N) A) -> (O) {\n    O(i) = A(i) + A(i)\n}\n");
    FindBar bar(&e);
    bar.open_replace();
    bar.find_edit()->setText("A(i)");
    QVERIFY(bar.find_next());
    QCOMPARE(e.selectedText(), QStringLiteral("A(i)"));
    bar.replace_edit()->setText("B(i)");
    QCOMPARE(bar.replace_all(), 2);
    QCOMPARE(e.text(1), QStringLiteral("    O(i) = B(i) + B(i)\n"));
    bar.find_edit()->setText("nowhere");
    QVERIFY(!bar.find_next());
  }

  void code_panes_colour_their_language() {
    CodeView c(CodeLanguage::C);
    GeneratedText g{"// a comment\nfor (int64_t c0 = 0; c0 <= 7; c0++) {\n  #pragma omp parallel for\n}\n", {}};
    c.set_code(g);
    colourise(c);
    auto style = [&](long pos) { return int(c.SendScintilla(QsciScintilla::SCI_GETSTYLEAT, pos)); };
    QCOMPARE(style(0), int(CodeLexer::Comment));
    long for_pos = long(g.text.find("for"));
    QCOMPARE(style(for_pos), int(CodeLexer::Keyword));
    QCOMPARE(style(long(g.text.find("int64_t"))), int(CodeLexer::Type));
    QCOMPARE(style(long(g.text.find("7;"))), int(CodeLexer::Number));
    QCOMPARE(style(long(g.text.find("#pragma"))), int(CodeLexer::Directive));

    CodeView ir(CodeLanguage::LlvmIr);
    GeneratedText t{"; ModuleID\ndefine void @f(ptr %A) {\nentry:\n  %0 = load float, ptr %A, align 4\n}\n", {}};
    ir.set_code(t);
    colourise(ir);
    auto irstyle = [&](long pos) { return int(ir.SendScintilla(QsciScintilla::SCI_GETSTYLEAT, pos)); };
    QCOMPARE(irstyle(0), int(CodeLexer::Comment));
    QCOMPARE(irstyle(long(t.text.find("define"))), int(CodeLexer::Keyword));
    QCOMPARE(irstyle(long(t.text.find("@f"))), int(CodeLexer::Label));
    QCOMPARE(irstyle(long(t.text.find("%A"))), int(CodeLexer::Register));
    QCOMPARE(irstyle(long(t.text.find("float,"))), int(CodeLexer::Type));

    CodeView as(CodeLanguage::Assembly);
    GeneratedText a{"\t.text\nmatmul:\n\tvmovups\t(%rdi), %zmm0\t# comment\n", {}};
    as.set_code(a);
    colourise(as);
    auto asstyle = [&](long pos) { return int(as.SendScintilla(QsciScintilla::SCI_GETSTYLEAT, pos)); };
    QCOMPARE(asstyle(1), int(CodeLexer::Directive));
    QCOMPARE(asstyle(long(a.text.find("matmul"))), int(CodeLexer::Label));
    QCOMPARE(asstyle(long(a.text.find("%zmm0"))), int(CodeLexer::Register));
    QCOMPARE(asstyle(long(a.text.find("# comment"))), int(CodeLexer::Comment));
  }

  void code_panes_hide_comments_and_directives_keeping_origins() {
    CodeView c(CodeLanguage::C);
    GeneratedText g{"// header\n#include <math.h>\nfor (;;) {  // L3\n  x = 1;  // S0\n}\n",
                    {{}, {}, {3, -1}, {-1, 0}, {3, -1}}};
    c.set_code(g);
    QCOMPARE(c.lines(), 6);
    c.set_hide_comments(true);
    c.set_hide_directives(true);
    QCOMPARE(c.text(0), QStringLiteral("for (;;) {  // L3\n"));
    QCOMPARE(c.origin_of_line(0).loop_id, 3);
    QCOMPARE(c.origin_of_line(1).stmt, 0);
    QCOMPARE(c.mark_lines([](const LineOrigin& o) { return o.stmt == 0; }), 1);
    QCOMPARE(c.marked_lines(), std::vector<int>{1});
    c.set_hide_comments(false);
    QCOMPARE(c.origin_of_line(2).stmt, 0);
  }
};

QTEST_MAIN(EditorTest)
#include "editor_test.moc"
