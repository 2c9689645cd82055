#include "lang/Parser.h"

#include <charconv>
#include <limits>
#include <optional>

namespace tcs {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::ExprPtr;

// Thrown inside a statement or a def header once its error is reported; caught where the
// parser can resynchronise. Never leaves this file.
struct ParseFailure {};

constexpr int kMaxNesting = 200;  // deeper expressions would risk the stack

class Parser {
 public:
  Parser(const SourceFile& file, const std::vector<Token>& tokens, Diagnostics& diags)
      : file_(file), toks_(tokens), diags_(diags) {}

  ast::Program run() {
    ast::Program program;
    while (!at(TokenKind::End)) {
      if (at(TokenKind::KwDef)) {
        program.defs.push_back(parse_def());
        continue;
      }
      error_here("expected 'def' to start a kernel, found " + describe(peek()));
      while (!at(TokenKind::End) && !at(TokenKind::KwDef)) advance();
    }
    if (program.defs.empty() && !diags_.has_errors())
      diags_.error(peek().range, "the file holds no 'def': write 'def name(...) -> (...) { ... }'");
    return program;
  }

 private:
  // ---- token helpers ------------------------------------------------------------------
  const Token& peek(size_t k = 0) const {
    size_t i = std::min(pos_ + k, toks_.size() - 1);
    return toks_[i];
  }
  bool at(TokenKind k) const { return peek().kind == k; }
  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }

  std::string describe(const Token& t) const {
    if (t.kind == TokenKind::End) return "end of file";
    return "'" + std::string(t.text) + "'";
  }

  // Reports and abandons the current statement or declaration. At an Invalid token the
  // lexer has already said what is wrong, so nothing more is reported.
  [[noreturn]] void fail(SourceRange r, std::string message) {
    if (!at(TokenKind::Invalid)) diags_.error(r, std::move(message));
    throw ParseFailure{};
  }
  void error_here(std::string message) {
    if (!at(TokenKind::Invalid)) diags_.error(peek().range, std::move(message));
  }

  const Token& expect(TokenKind k, const std::string& context) {
    if (!at(k))
      fail(missing_token_range(), "expected " + std::string(token_kind_spelling(k)) + " " + context +
                                      ", found " + describe(peek()));
    return advance();
  }

  // Where to report a missing token: at the next token, unless that one is on a later
  // line, in which case just after the previous token (where the user forgot it).
  SourceRange missing_token_range() const {
    if (pos_ == 0) return peek().range;
    const Token& prev = toks_[pos_ - 1];
    bool later_line = file_.line_column(peek().range.begin).line > file_.line_column(prev.range.end).line;
    return later_line ? SourceRange{prev.range.end, prev.range.end} : peek().range;
  }

  // True when the tokens at `i` can begin a statement: NAME assign or NAME(...) assign.
  bool is_stmt_start(size_t i) const {
    if (i >= toks_.size() || toks_[i].kind != TokenKind::Identifier) return false;
    if (i + 1 >= toks_.size()) return false;
    if (token_is_assign(toks_[i + 1].kind)) return true;
    if (toks_[i + 1].kind != TokenKind::LParen) return false;
    int depth = 0;
    for (size_t j = i + 1; j < toks_.size() && j < i + 64; ++j) {
      TokenKind k = toks_[j].kind;
      if (k == TokenKind::LParen) ++depth;
      if (k == TokenKind::RParen && --depth == 0)
        return j + 1 < toks_.size() && token_is_assign(toks_[j + 1].kind);
      if (k == TokenKind::End || k == TokenKind::LBrace || k == TokenKind::RBrace) return false;
    }
    return false;
  }

  // After an error in the statement that began at `stmt_begin`: skip to the next token that
  // can begin a statement, or to the end of the def.
  void sync_statement(size_t stmt_begin) {
    if (pos_ == stmt_begin) advance();
    while (!at(TokenKind::End) && !at(TokenKind::RBrace) && !at(TokenKind::KwDef) &&
           !is_stmt_start(pos_))
      advance();
  }

  // ---- definitions --------------------------------------------------------------------
  ast::Def parse_def() {
    ast::Def def;
    const Token& kw = advance();  // 'def'
    def.range = kw.range;
    bool header_ok = true;
    try {
      if (!at(TokenKind::Identifier)) {
        std::string msg = "expected the kernel's name after 'def', found " + describe(peek());
        if (at(TokenKind::KwType) || at(TokenKind::KwMin) || at(TokenKind::KwMax) || at(TokenKind::KwIn) ||
            at(TokenKind::KwWhere) || at(TokenKind::KwExists))
          msg += ", which is a keyword and cannot name a kernel";
        fail(peek().range, msg);
      }
      const Token& name = advance();
      def.name = std::string(name.text);
      def.name_range = name.range;
      expect(TokenKind::LParen, "after the kernel name '" + def.name + "'");
      parse_decl_list(def, def.params, &Parser::parse_param);
      expect(TokenKind::RParen, "to close the parameter list of '" + def.name + "'");
      expect(TokenKind::Arrow, "between the parameters and the outputs of '" + def.name + "'");
      expect(TokenKind::LParen, "to open the output list of '" + def.name + "'");
      parse_decl_list(def, def.outputs, &Parser::parse_output);
      expect(TokenKind::RParen, "to close the output list of '" + def.name + "'");
    } catch (ParseFailure&) {
      header_ok = false;
      def.header_incomplete = true;
      while (!at(TokenKind::End) && !at(TokenKind::LBrace) && !at(TokenKind::KwDef)) advance();
    }
    SourceRange open = peek().range;
    bool has_open = accept(TokenKind::LBrace);
    if (!has_open) {
      if (header_ok) diags_.error(missing_token_range(), "expected '{' to open the body of '" + def.name +
                                                             "', found " + describe(peek()));
      // Without '{' the statements still follow: read them as the body rather than
      // reporting each one as a stray top-level token.
      if (!is_stmt_start(pos_)) {
        def.range = range_join(def.range, peek().range);
        return def;
      }
    }
    while (!at(TokenKind::RBrace)) {
      if (at(TokenKind::End) || at(TokenKind::KwDef)) {
        if (!has_open) return def;  // the missing '{' was reported; a missing '}' follows from it
        Diagnostic& d = diags_.error(peek().range, "expected '}' to close the body of '" +
                                                       def.name + "', found " + describe(peek()));
        d.notes.push_back({"the body opens here", open});
        def.range = range_join(def.range, open);
        return def;
      }
      size_t begin = pos_;
      try {
        def.stmts.push_back(parse_stmt());
      } catch (ParseFailure&) {
        bool named = toks_[begin].kind == TokenKind::Identifier;
        def.dropped_statements.push_back({named ? std::string(toks_[begin].text) : "", toks_[begin].range});
        sync_statement(begin);
      }
    }
    def.range = range_join(def.range, advance().range);
    return def;
  }

  // A comma-separated parameter or output list. A broken entry is skipped up to the next
  // ',' or ')' so the other entries are still declared (and their uses still resolve).
  void parse_decl_list(ast::Def& def, std::vector<ast::TensorDecl>& out, ast::TensorDecl (Parser::*one)()) {
    if (at(TokenKind::RParen)) return;
    while (true) {
      try {
        out.push_back((this->*one)());
      } catch (ParseFailure&) {
        def.header_incomplete = true;
        int depth = 0;
        while (!at(TokenKind::End) && !at(TokenKind::LBrace) && !at(TokenKind::Arrow) &&
               !(depth == 0 && (at(TokenKind::Comma) || at(TokenKind::RParen)))) {
          if (at(TokenKind::LParen)) ++depth;
          if (at(TokenKind::RParen)) --depth;
          advance();
        }
      }
      if (accept(TokenKind::Comma)) continue;
      // "float(N) A float(N) B": say what is missing and read on as if it were there.
      if (at(TokenKind::KwType) || (at(TokenKind::Identifier) && peek(1).kind != TokenKind::LBrace)) {
        diags_.error(missing_token_range(), "expected ',' between declarations, found " + describe(peek()));
        continue;
      }
      return;
    }
  }

  std::vector<ast::Dim> parse_dims() {
    std::vector<ast::Dim> dims;
    if (at(TokenKind::RParen)) return dims;
    do {
      const Token& t = peek();
      if (t.kind == TokenKind::Identifier) {
        dims.push_back({std::string(t.text), 0, t.range});
      } else if (t.kind == TokenKind::Integer) {
        auto v = parse_int(t);
        dims.push_back({"", v.value_or(ast::Dim::kBadLiteral), t.range});
      } else {
        fail(t.range, "expected a size (a size parameter or an integer) in the tensor type, found " +
                          describe(t));
      }
      advance();
    } while (accept(TokenKind::Comma));
    return dims;
  }

  ast::TensorDecl parse_type_and_name(const char* what) {
    ast::TensorDecl d;
    const Token& ty = advance();
    d.range = ty.range;
    d.type = scalar_type_from_name(ty.text);
    if (accept(TokenKind::LParen)) {
      d.has_shape = true;
      try {
        d.dims = parse_dims();
        expect(TokenKind::RParen, "to close the shape of the " + std::string(what));
      } catch (ParseFailure&) {
        // Skip the rest of the shape and keep the declaration, marked as having a bad
        // size, so its name still resolves and its uses add no errors.
        int depth = 0;
        while (!at(TokenKind::End) && !at(TokenKind::LBrace) && !(depth == 0 && at(TokenKind::RParen))) {
          if (at(TokenKind::LParen)) ++depth;
          if (at(TokenKind::RParen)) --depth;
          advance();
        }
        accept(TokenKind::RParen);
        d.dims.push_back({"", ast::Dim::kBadLiteral, peek().range});
      }
    }
    if (!at(TokenKind::Identifier))
      fail(peek().range, "expected the " + std::string(what) + "'s name after its type, found " +
                             describe(peek()));
    const Token& name = advance();
    d.name = std::string(name.text);
    d.name_range = name.range;
    d.range = range_join(d.range, name.range);
    return d;
  }

  ast::TensorDecl parse_param() {
    if (at(TokenKind::KwType)) return parse_type_and_name("parameter");
    if (at(TokenKind::Identifier)) {
      if (auto hint = type_spelling_hint(peek().text); !hint.empty()) fail(peek().range, hint);
      fail(peek().range, "parameter '" + std::string(peek().text) +
                             "' needs a type, e.g. 'float(N) " + std::string(peek().text) + "'");
    }
    fail(peek().range, "expected a parameter (a type and a name), found " + describe(peek()));
  }

  ast::TensorDecl parse_output() {
    if (at(TokenKind::KwType)) return parse_type_and_name("output");
    if (at(TokenKind::Identifier) && peek(1).kind != TokenKind::Comma && peek(1).kind != TokenKind::RParen)
      if (auto hint = type_spelling_hint(peek().text); !hint.empty()) fail(peek().range, hint);
    if (!at(TokenKind::Identifier))
      fail(peek().range, "expected an output name, found " + describe(peek()));
    const Token& name = advance();
    ast::TensorDecl d;
    d.name = std::string(name.text);
    d.name_range = name.range;
    d.range = name.range;
    return d;
  }

  // "'int' is not a type; use int32" for spellings from other languages, else empty.
  static std::string type_spelling_hint(std::string_view word) {
    auto t = scalar_type_suggestion(word);
    return t ? "'" + std::string(word) + "' is not a type; use " + std::string(*t) : "";
  }

  // ---- statements ---------------------------------------------------------------------
  ast::Stmt parse_stmt() {
    ast::Stmt s;
    if (!at(TokenKind::Identifier)) {
      if (at(TokenKind::Slash) && peek(1).kind == TokenKind::Slash && peek(1).range.begin == peek().range.end)
        fail({peek().range.begin, peek(1).range.end}, "'//' is not a comment; comments start with '#'");
      std::string msg = "expected a statement (a tensor name on the left), found " + describe(peek());
      if (at(TokenKind::KwType)) msg += "; types are written only in the def's parameter and output lists";
      fail(peek().range, msg);
    }
    const Token& lhs = advance();
    s.lhs = std::string(lhs.text);
    s.lhs_range = lhs.range;
    s.range = lhs.range;
    if (accept(TokenKind::LParen)) {
      s.lhs_has_parens = true;
      if (!at(TokenKind::RParen)) {
        do {
          ExprPtr e = parse_expr();
          if (e->kind != ExprKind::Name) {
            std::string kind = e->kind == ExprKind::IntLiteral || e->kind == ExprKind::FloatLiteral
                                   ? "a constant"
                                   : "an expression";
            fail(e->range, "the left-hand side of '" + s.lhs +
                               "' takes plain index variables only, not " + kind + " ('" +
                               std::string(file_.slice(e->range)) + "')");
          }
          s.lhs_indices.push_back({e->name, e->range});
        } while (accept(TokenKind::Comma));
      }
      s.lhs_range = range_join(s.lhs_range, expect(TokenKind::RParen, "to close the left-hand side").range);
    }
    parse_assign_op(s);
    s.rhs = parse_expr();
    s.range = range_join(s.range, s.rhs->range);
    if (accept(TokenKind::Equivalent)) {
      if (!at(TokenKind::Identifier))
        fail(peek().range, "expected a name after '<=>', found " + describe(peek()));
      const Token& n = advance();
      s.equivalent_name = std::string(n.text);
      expect(TokenKind::LParen, "after '<=> " + std::string(n.text) + "'");
      if (!at(TokenKind::RParen)) {
        do s.equivalent_args.push_back(parse_expr());
        while (accept(TokenKind::Comma));
      }
      s.range = range_join(s.range, expect(TokenKind::RParen, "to close the equivalence").range);
    }
    if (accept(TokenKind::KwWhere)) {
      do s.where.push_back(parse_clause());
      while (accept(TokenKind::Comma));
      s.range = range_join(s.range, s.where.back().range);
    }
    // No terminator: the statement ends where the next one begins.
    if (!at(TokenKind::Identifier) && !at(TokenKind::RBrace) && !at(TokenKind::End) &&
        !at(TokenKind::KwDef)) {
      std::string msg = "unexpected " + describe(peek()) + " after the statement";
      if (at(TokenKind::Slash) && peek(1).kind == TokenKind::Slash)
        msg = "'//' is not a comment; comments start with '#'";
      fail(peek().range, msg);
    }
    return s;
  }

  void parse_assign_op(ast::Stmt& s) {
    const Token& t = peek();
    using ast::ReduceOp;
    struct { TokenKind k; ReduceOp op; bool init; } table[] = {
        {TokenKind::Assign, ReduceOp::None, false},   {TokenKind::PlusEq, ReduceOp::Sum, false},
        {TokenKind::StarEq, ReduceOp::Product, false}, {TokenKind::MinEq, ReduceOp::Min, false},
        {TokenKind::MaxEq, ReduceOp::Max, false},      {TokenKind::PlusEqBang, ReduceOp::Sum, true},
        {TokenKind::StarEqBang, ReduceOp::Product, true}, {TokenKind::MinEqBang, ReduceOp::Min, true},
        {TokenKind::MaxEqBang, ReduceOp::Max, true},
    };
    for (const auto& e : table) {
      if (t.kind == e.k) {
        s.reduce = e.op;
        s.init = e.init;
        s.assign_range = advance().range;
        return;
      }
    }
    // Common slips get a precise message: "-=", "/=", "=!".
    const Token& next = peek(1);
    bool glued = next.range.begin == t.range.end;
    if (glued && next.kind == TokenKind::Assign &&
        (t.kind == TokenKind::Minus || t.kind == TokenKind::Slash || t.kind == TokenKind::Percent))
      fail({t.range.begin, next.range.end},
           "'" + std::string(t.text) + "=' is not a reduction operator; use '=', '+=', '*=', "
           "'min=' or 'max=' (with '!' to initialise)");
    fail(t.range, "expected an assignment ('=', '+=!', 'max=!', ...) after the left-hand side '" +
                      s.lhs + "', found " + describe(t));
  }

  ast::WhereClause parse_clause() {
    ast::WhereClause c;
    if (at(TokenKind::KwExists)) {
      c.range = advance().range;
      c.kind = ast::WhereClause::Exists;
      c.value = parse_expr();
      c.range = range_join(c.range, c.value->range);
      return c;
    }
    if (!at(TokenKind::Identifier))
      fail(peek().range, "expected 'NAME in lo:hi', 'NAME = expr' or 'exists expr' after 'where', found " +
                             describe(peek()));
    const Token& n = advance();
    c.name = std::string(n.text);
    c.name_range = n.range;
    c.range = n.range;
    if (accept(TokenKind::KwIn)) {
      c.kind = ast::WhereClause::Range;
      c.lo = parse_expr();
      expect(TokenKind::Colon, "between the bounds of the range of '" + c.name + "' (lo:hi)");
      c.hi = parse_expr();
      c.range = range_join(c.range, c.hi->range);
      return c;
    }
    if (accept(TokenKind::Assign)) {
      c.kind = ast::WhereClause::Let;
      c.value = parse_expr();
      c.range = range_join(c.range, c.value->range);
      return c;
    }
    fail(peek().range, "expected 'in' or '=' after '" + c.name + "' in the where clause, found " +
                           describe(peek()));
  }

  // ---- expressions --------------------------------------------------------------------
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxNesting) p.fail(p.peek().range, "expression nested too deeply");
    }
    ~DepthGuard() { --p.depth_; }
  };

  ExprPtr parse_expr() {
    DepthGuard guard(*this);
    ExprPtr cond = parse_binary(0);
    if (!at(TokenKind::Question)) return cond;
    advance();
    ExprPtr then_e = parse_expr();
    expect(TokenKind::Colon, "in the conditional expression 'c ? a : b'");
    ExprPtr else_e = parse_expr();
    auto e = std::make_unique<Expr>(ExprKind::Ternary, range_join(cond->range, else_e->range));
    e->args.push_back(std::move(cond));
    e->args.push_back(std::move(then_e));
    e->args.push_back(std::move(else_e));
    return e;
  }

  static int precedence(TokenKind k) {
    switch (k) {
      case TokenKind::OrOr: return 1;
      case TokenKind::AndAnd: return 2;
      case TokenKind::Less: case TokenKind::Greater: case TokenKind::LessEq:
      case TokenKind::GreaterEq: case TokenKind::EqEq: case TokenKind::NotEq: return 3;
      case TokenKind::Plus: case TokenKind::Minus: return 4;
      case TokenKind::Star: case TokenKind::Slash: case TokenKind::Percent: return 5;
      default: return -1;
    }
  }

  // Precedence climbing over the left-associative binary operators.
  ExprPtr parse_binary(int min_prec) {
    ExprPtr lhs = parse_unary();
    while (true) {
      int prec = precedence(peek().kind);
      if (prec < 0 || prec < min_prec) return lhs;
      if (at(TokenKind::Slash) && peek(1).kind == TokenKind::Slash && peek(1).range.begin == peek().range.end)
        fail({peek().range.begin, peek(1).range.end}, "'//' is not a comment; comments start with '#'");
      const Token& op = advance();
      DepthGuard guard(*this);
      ExprPtr rhs = parse_binary(prec + 1);
      auto e = std::make_unique<Expr>(ExprKind::Binary, range_join(lhs->range, rhs->range));
      e->op = op.kind;
      e->name_range = op.range;
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      lhs = std::move(e);
    }
  }

  ExprPtr parse_unary() {
    if (at(TokenKind::Minus) || at(TokenKind::Bang)) {
      DepthGuard guard(*this);
      const Token& op = advance();
      ExprPtr operand = parse_unary();
      auto e = std::make_unique<Expr>(ExprKind::Unary, range_join(op.range, operand->range));
      e->op = op.kind;
      e->name_range = op.range;
      e->args.push_back(std::move(operand));
      return e;
    }
    return parse_primary();
  }

  std::optional<int64_t> parse_int(const Token& t) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || v > std::numeric_limits<int32_t>::max()) {
      diags_.error(t.range, "integer literal '" + std::string(t.text) + "' does not fit in int32");
      return std::nullopt;
    }
    return v;
  }

  std::vector<ExprPtr> parse_call_args(const std::string& callee) {
    std::vector<ExprPtr> args;
    if (!at(TokenKind::RParen)) {
      do args.push_back(parse_expr());
      while (accept(TokenKind::Comma));
    }
    if (!at(TokenKind::RParen))
      fail(peek().range, "expected ',' or ')' in the arguments of '" + callee + "', found " +
                             describe(peek()));
    return args;
  }

  ExprPtr parse_primary() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Integer: {
        advance();
        auto e = std::make_unique<Expr>(ExprKind::IntLiteral, t.range);
        e->int_value = parse_int(t).value_or(0);
        e->type = ScalarType::Int32;
        return e;
      }
      case TokenKind::Float: {
        advance();
        auto e = std::make_unique<Expr>(ExprKind::FloatLiteral, t.range);
        double v = 0;
        auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
        if (ec == std::errc::result_out_of_range || v > double(std::numeric_limits<float>::max()))
          diags_.error(t.range, "floating-point literal '" + std::string(t.text) + "' is too large for float32");
        e->float_value = v;
        return e;
      }
      case TokenKind::LParen: {
        advance();
        ExprPtr inner = parse_expr();
        const Token& close = expect(TokenKind::RParen, "to close '('");
        inner->range = range_join(t.range, close.range);
        return inner;
      }
      case TokenKind::KwType: {
        advance();
        if (!at(TokenKind::LParen))
          fail(peek().range, "expected '(' after the type '" + std::string(t.text) +
                                 "' in a cast such as " + std::string(t.text) + "(x), found " +
                                 describe(peek()));
        advance();
        ExprPtr inner = parse_expr();
        const Token& close = expect(TokenKind::RParen, "to close the cast");
        auto e = std::make_unique<Expr>(ExprKind::Cast, range_join(t.range, close.range));
        e->cast_type = *scalar_type_from_name(t.text);
        e->name_range = t.range;
        e->args.push_back(std::move(inner));
        return e;
      }
      case TokenKind::KwMin:
      case TokenKind::KwMax: {
        advance();
        expect(TokenKind::LParen, "after '" + std::string(t.text) + "' (it is written " +
                                      std::string(t.text) + "(a, b))");
        auto e = std::make_unique<Expr>(ExprKind::MinMax, t.range);
        e->op = t.kind;
        e->name = std::string(t.text);
        e->name_range = t.range;
        e->args = parse_call_args(e->name);
        const Token& close = advance();
        e->range = range_join(t.range, close.range);
        if (e->args.size() != 2)
          fail(e->range, "'" + e->name + "' takes 2 arguments, given " + std::to_string(e->args.size()));
        return e;
      }
      case TokenKind::Identifier: {
        advance();
        if (!at(TokenKind::LParen)) {
          auto e = std::make_unique<Expr>(ExprKind::Name, t.range);
          e->name = std::string(t.text);
          e->name_range = t.range;
          return e;
        }
        advance();
        auto e = std::make_unique<Expr>(ExprKind::Access, t.range);
        e->name = std::string(t.text);
        e->name_range = t.range;
        e->args = parse_call_args(e->name);
        e->range = range_join(t.range, advance().range);
        return e;
      }
      default: break;
    }
    std::string msg = "expected an expression, found " + describe(t);
    if (t.kind == TokenKind::Slash && peek(1).kind == TokenKind::Slash)
      msg = "'//' is not a comment; comments start with '#'";
    fail(t.range, msg);
  }

  const SourceFile& file_;
  const std::vector<Token>& toks_;
  Diagnostics& diags_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

ast::Program parse(const SourceFile& file, const std::vector<Token>& tokens, Diagnostics& diags) {
  return Parser(file, tokens, diags).run();
}

}  // namespace tcs
