// The lexer's tokens and byte ranges, the parser's tree and precedence, and its recovery:
// several independent errors in one file are all reported, each once.
#include <gtest/gtest.h>

#include "kernel/KernelSetup.h"
#include "lang/Frontend.h"
#include "lang/Lexer.h"
#include "lang/Parser.h"

namespace tcs {
namespace {

// Tokens are views into their file's text, so the file travels with them.
struct Lexed {
  std::unique_ptr<SourceFile> file;
  std::vector<Token> tokens;
};

Lexed lex_ok(const std::string& text) {
  Lexed l{std::make_unique<SourceFile>("t.tc", text), {}};
  Diagnostics d;
  l.tokens = lex(*l.file, d);
  EXPECT_FALSE(d.has_errors()) << diagnostics_format(*l.file, d.list());
  return l;
}

TEST(Lexer, LongestMatchAndRanges) {
  Lexed l = lex_ok("maxVal max=! max= max <=> <= +=! # comment\n 3 .5 1e-5 2.5e3 3.");
  const std::vector<Token>& t = l.tokens;
  std::vector<TokenKind> kinds;
  for (const Token& k : t) kinds.push_back(k.kind);
  std::vector<TokenKind> want = {TokenKind::Identifier, TokenKind::MaxEqBang, TokenKind::MaxEq,
                                 TokenKind::KwMax,      TokenKind::Equivalent, TokenKind::LessEq,
                                 TokenKind::PlusEqBang, TokenKind::Integer,   TokenKind::Float,
                                 TokenKind::Float,      TokenKind::Float,     TokenKind::Float,
                                 TokenKind::End};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(t[0].range, (SourceRange{0, 6}));
  EXPECT_EQ(t[1].range, (SourceRange{7, 12}));
  EXPECT_EQ(t[7].text, "3");
}

TEST(Lexer, TypeKeywordsAndComments) {
  Lexed l = lex_ok("float double int64 uint8 bool float16 # float\n");
  const std::vector<Token>& t = l.tokens;
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(t[i].kind, TokenKind::KwType) << i;
  EXPECT_EQ(t[6].kind, TokenKind::End);
}

TEST(Lexer, BadCharactersAreReportedAndSkipped) {
  SourceFile f("t.tc", "a @ b é c");
  Diagnostics d;
  auto t = lex(f, d);
  ASSERT_EQ(d.list().size(), 2u);
  EXPECT_EQ(d.list()[0].message, "unexpected character '@'");
  EXPECT_EQ(d.list()[1].range, (SourceRange{6, 8}));  // the whole UTF-8 sequence
  ASSERT_EQ(t.size(), 6u);                            // a Invalid b Invalid c End
  EXPECT_EQ(t[1].kind, TokenKind::Invalid);
}

const ast::Expr& rhs_of(const CheckedFile& c, size_t stmt = 0) { return *c.program.defs[0].stmts[stmt].rhs; }

TEST(Parser, PrecedenceAndAssociativity) {
  auto c = check_source("t.tc", "def f(float(N) A) -> (O) { O(i) = A(i) + A(i) * A(i) - A(i) / 2 }");
  ASSERT_FALSE(c->has_errors()) << diagnostics_format(c->file, c->diagnostics);
  const ast::Expr& e = rhs_of(*c);  // ((A + (A*A)) - (A/2))
  ASSERT_EQ(e.kind, ast::ExprKind::Binary);
  EXPECT_EQ(e.op, TokenKind::Minus);
  EXPECT_EQ(e.args[0]->op, TokenKind::Plus);
  EXPECT_EQ(e.args[0]->args[1]->op, TokenKind::Star);
  EXPECT_EQ(e.args[1]->op, TokenKind::Slash);
}

TEST(Parser, TernaryIsRightAssociativeAndLoosest) {
  auto c = check_source("t.tc",
                        "def f(float(N) A) -> (O) { O(i) = A(i) > 0 && A(i) < 1 ? 1.0 : A(i) < 2 ? 2.0 : 3.0 }");
  ASSERT_FALSE(c->has_errors()) << diagnostics_format(c->file, c->diagnostics);
  const ast::Expr& e = rhs_of(*c);
  ASSERT_EQ(e.kind, ast::ExprKind::Ternary);
  EXPECT_EQ(e.args[0]->op, TokenKind::AndAnd);
  EXPECT_EQ(e.args[2]->kind, ast::ExprKind::Ternary);
}

TEST(Parser, StatementsNeedNoTerminator) {
  auto c = check_source("t.tc", "def f(float(N) A) -> (O, P) { O(i) = A(i) P(i) = O(i) * 2 }");
  ASSERT_FALSE(c->has_errors()) << diagnostics_format(c->file, c->diagnostics);
  EXPECT_EQ(c->program.defs[0].stmts.size(), 2u);
}

TEST(Parser, EveryAssignmentOperator) {
  auto c = check_source("t.tc",
                        "def f(float(N, K) A) -> (O) {\n"
                        "  O(i) +=! A(i, k)\n  O(i) += A(i, k)\n  O(i) *= A(i, k)\n  O(i) min= A(i, k)\n"
                        "  O(i) max= A(i, k)\n  O(i) *=! A(i, k)\n  O(i) min=! A(i, k)\n  O(i) max=! A(i, k)\n"
                        "  O(i) = O(i)\n}");
  ASSERT_FALSE(c->has_errors()) << diagnostics_format(c->file, c->diagnostics);
  const auto& s = c->program.defs[0].stmts;
  ASSERT_EQ(s.size(), 9u);
  EXPECT_EQ(s[0].reduce, ast::ReduceOp::Sum);
  EXPECT_TRUE(s[0].init);
  EXPECT_FALSE(s[1].init);
  EXPECT_EQ(s[3].reduce, ast::ReduceOp::Min);
  EXPECT_EQ(s[7].reduce, ast::ReduceOp::Max);
  EXPECT_EQ(s[8].reduce, ast::ReduceOp::None);
}

TEST(Parser, ScalarSpellingsAndEquivalence) {
  auto c = check_source("t.tc",
                        "def dot(float(N) A, float(N) B) -> (O, P, Q) {\n"
                        "  O +=! A(i) * B(i) <=> dot(A, B)\n  P() +=! A(i) * B(i)\n"
                        "  Q(i) +=! A(k) * B(k) where i in 0:1\n}");
  ASSERT_FALSE(c->has_errors()) << diagnostics_format(c->file, c->diagnostics);
  EXPECT_EQ(c->program.defs[0].stmts[0].equivalent_name, "dot");
}

TEST(Parser, RecoversAndReportsEveryError) {
  auto c = check_source("t.tc",
                        "def f(float(N) A) -> (O, P, Q) {\n"
                        "  O(i) = A(i) +\n"       // missing operand: the next statement begins
                        "  P(i) = A(i) @ 2\n"     // lexical error, the statement still parses
                        "  Q(i+1) = A(i)\n"       // expression on the left-hand side
                        "}\n"
                        "def g(float(N) A) -> (O) { O(i) = A(i)) }\n");
  std::vector<std::string> errors;
  for (const Diagnostic& d : c->diagnostics)
    if (d.severity == Severity::Error) errors.push_back(d.message);
  ASSERT_GE(errors.size(), 3u) << diagnostics_format(c->file, c->diagnostics);
  EXPECT_EQ(c->program.defs.size(), 2u);  // the second def was parsed after the first's errors
  bool saw_paren = false;
  for (const std::string& e : errors) saw_paren |= e == "unexpected ')' after the statement";
  EXPECT_TRUE(saw_paren) << diagnostics_format(c->file, c->diagnostics);
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  auto c = check_source("t.tc", "def f(float(N) A) -> (O) { O(i) = " + deep + "A(i)" + std::string(5000, ')') + " }");
  ASSERT_TRUE(c->has_errors());
  EXPECT_EQ(c->diagnostics[0].message, "expression nested too deeply");
}

TEST(Diagnostics, CaretFormat) {
  auto c = check_source("k.tc", "def f(float(N) Input) -> (O) {\n  O(i) = Input(i) * Inptu(i)\n}\n");
  ASSERT_EQ(c->diagnostics.size(), 1u);
  EXPECT_EQ(diagnostic_format(c->file, c->diagnostics[0]),
            "k.tc:2:21: error: unknown tensor or function 'Inptu'; did you mean 'Input'?\n"
            "    O(i) = Input(i) * Inptu(i)\n"
            "                      ^~~~~\n");
}

TEST(Diagnostics, CaretCountsCharactersNotBytes) {
  auto c = check_source("k.tc", "def f(float(N) A) -> (O) {\n  O(i) = A(i) # größe\n  P ü\n}\n");
  ASSERT_FALSE(c->diagnostics.empty());
  std::string text = diagnostics_format(c->file, c->diagnostics);
  EXPECT_NE(text.find("unexpected character '\xC3\xBC' (U+00FC)\n    P \xC3\xBC\n      ^\n"), std::string::npos) << text;
}

TEST(Diagnostics, Json) {
  auto c = check_source("k.tc", "def f(float(N) A) -> (O) {\n  O(i) = A(i) * Bx(i)\n}\n");
  EXPECT_EQ(diagnostics_to_json(c->file, c->diagnostics),
            R"({"diagnostics":[{"severity":"error","message":"unknown tensor or function 'Bx'",)"
            R"("line":2,"column":17,"end_line":2,"end_column":19}]})");
}

TEST(Frontend, SizesHeaderAndEntrySelection) {
  auto c = check_source("t.tc",
                        "# title\n# sizes: M=128 K=256  N=512\n"
                        "def a(float(M) X) -> (O) { O(i) = X(i) }\ndef b(float(M) X) -> (O) { O(i) = X(i) }\n");
  SizeMap s = sizes_from_header(c->file.text());
  EXPECT_EQ(s, (SizeMap{{"M", 128}, {"K", 256}, {"N", 512}}));
  EXPECT_FALSE(select_entry(*c, ""));
  EXPECT_NE(select_entry(*c, "").error().find("choose one with --entry"), std::string::npos);
  ASSERT_TRUE(select_entry(*c, "b"));
  EXPECT_EQ((*select_entry(*c, "b"))->name, "b");
  EXPECT_NE(select_entry(*c, "z").error().find("it defines a, b"), std::string::npos);
}

// Issue 11: a file with a "# sizes:" line per def used the first line for every def.
TEST(Frontend, EachDefTakesTheSizesLineBeforeIt) {
  std::string text =
      "def early(float(N) X) -> (O) { O(i) = X(i) }\n"
      "# sizes: N=8\n"
      "def a(float(N) X) -> (O) { O(i) = X(i) }\n"
      "# sizes: N=32\n"
      "def b(float(N) X) -> (O) { O(i) = X(i) }\n";
  auto c = check_source("t.tc", text);
  ASSERT_EQ(c->defs.size(), 3u);
  auto at = [&](int d) { return sizes_from_header(text, c->defs[size_t(d)].ast->range.begin); };
  EXPECT_EQ(at(0), (SizeMap{{"N", 8}}));  // before any line: the file's first
  EXPECT_EQ(at(1), (SizeMap{{"N", 8}}));
  EXPECT_EQ(at(2), (SizeMap{{"N", 32}}));
  EXPECT_EQ(sizes_from_header(text), (SizeMap{{"N", 8}}));
  auto b = kernel_setup(std::shared_ptr<const CheckedFile>(std::move(c)), KernelSpec{"b", {}, {}});
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(b->shapes.sizes.at("N"), 32);
}

// A def's saved options: the "# options:" line in the comments directly above it, not
// another def's and not one separated from it by code.
TEST(Frontend, OptionsHeaderIsTheCommentAboveTheDef) {
  std::string text =
      "# sizes: N=8\n"
      "#   options:   naive  \n"
      "\n"
      "def a(float(N) X) -> (O) { O(i) = X(i) }\n"
      "# options: {\"tile\": [4]}\r\n"
      "def b(float(N) X) -> (O) { O(i) = X(i) }\n"
      "def c(float(N) X) -> (O) { O(i) = X(i) }\n";
  auto c = check_source("t.tc", text);
  ASSERT_EQ(c->defs.size(), 3u);
  OptionsHeader a = options_header(text, c->defs[0].ast->range.begin);
  EXPECT_TRUE(a.found);
  EXPECT_EQ(a.value, "naive");
  EXPECT_EQ(a.line, 2);
  EXPECT_EQ(text.substr(a.begin, a.end - a.begin), "#   options:   naive  ");
  OptionsHeader b = options_header(text, c->defs[1].ast->range.begin);
  EXPECT_TRUE(b.found);
  EXPECT_EQ(b.value, "{\"tile\": [4]}");
  EXPECT_EQ(text[b.end], '\r');
  // c has code right above it: no line, and a new one would go on c's own line.
  OptionsHeader none = options_header(text, c->defs[2].ast->range.begin);
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.begin, size_t(c->defs[2].ast->range.begin));
  EXPECT_EQ(none.line, 7);
  EXPECT_EQ(options_header_line("naive"), "# options: naive");
  EXPECT_FALSE(options_header("def f(float(N) X) -> (O) { O(i) = X(i) }", 0).found);
}

}  // namespace
}  // namespace tcs
