#include "lang/Lexer.h"

#include <cctype>
#include <cstdio>
#include <string>

#include "support/ScalarType.h"

namespace tcs {

std::string_view token_kind_spelling(TokenKind k) {
  switch (k) {
    case TokenKind::End: return "end of file";
    case TokenKind::Invalid: return "invalid character";
    case TokenKind::Identifier: return "identifier";
    case TokenKind::Integer: return "integer";
    case TokenKind::Float: return "number";
    case TokenKind::KwDef: return "'def'";
    case TokenKind::KwWhere: return "'where'";
    case TokenKind::KwIn: return "'in'";
    case TokenKind::KwExists: return "'exists'";
    case TokenKind::KwMin: return "'min'";
    case TokenKind::KwMax: return "'max'";
    case TokenKind::KwType: return "type";
    case TokenKind::Arrow: return "'->'";
    case TokenKind::Equivalent: return "'<=>'";
    case TokenKind::PlusEq: return "'+='";
    case TokenKind::StarEq: return "'*='";
    case TokenKind::MinEq: return "'min='";
    case TokenKind::MaxEq: return "'max='";
    case TokenKind::PlusEqBang: return "'+=!'";
    case TokenKind::StarEqBang: return "'*=!'";
    case TokenKind::MinEqBang: return "'min=!'";
    case TokenKind::MaxEqBang: return "'max=!'";
    case TokenKind::GreaterEq: return "'>='";
    case TokenKind::LessEq: return "'<='";
    case TokenKind::EqEq: return "'=='";
    case TokenKind::NotEq: return "'!='";
    case TokenKind::AndAnd: return "'&&'";
    case TokenKind::OrOr: return "'||'";
    case TokenKind::Plus: return "'+'";
    case TokenKind::Minus: return "'-'";
    case TokenKind::Star: return "'*'";
    case TokenKind::Slash: return "'/'";
    case TokenKind::Percent: return "'%'";
    case TokenKind::LParen: return "'('";
    case TokenKind::RParen: return "')'";
    case TokenKind::Question: return "'?'";
    case TokenKind::Colon: return "':'";
    case TokenKind::Comma: return "','";
    case TokenKind::Assign: return "'='";
    case TokenKind::LBrace: return "'{'";
    case TokenKind::RBrace: return "'}'";
    case TokenKind::Less: return "'<'";
    case TokenKind::Greater: return "'>'";
    case TokenKind::Bang: return "'!'";
  }
  return "?";
}

bool token_is_assign(TokenKind k) {
  switch (k) {
    case TokenKind::Assign: case TokenKind::PlusEq: case TokenKind::StarEq:
    case TokenKind::MinEq: case TokenKind::MaxEq: case TokenKind::PlusEqBang:
    case TokenKind::StarEqBang: case TokenKind::MinEqBang: case TokenKind::MaxEqBang:
      return true;
    default: return false;
  }
}

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(const SourceFile& file, Diagnostics& diags)
      : text_(file.text()), diags_(diags) {}

  std::vector<Token> run() {
    while (true) {
      skip_space_and_comments();
      if (pos_ >= text_.size()) break;
      lex_one();
    }
    push(TokenKind::End, uint32_t(text_.size()));
    return std::move(tokens_);
  }

 private:
  void skip_space_and_comments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  void push(TokenKind k, uint32_t begin) {
    tokens_.push_back({k, {begin, uint32_t(pos_)}, text_.substr(begin, pos_ - begin)});
  }

  bool starts_with(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  void lex_one() {
    uint32_t begin = uint32_t(pos_);
    char c = text_[pos_];
    if (is_ident_start(c)) return lex_word(begin);
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1])))
      return lex_number(begin);
    // Longest operators first: "<=>" before "<=", "+=!" before "+=".
    static constexpr struct { std::string_view text; TokenKind kind; } ops[] = {
        {"<=>", TokenKind::Equivalent}, {"+=!", TokenKind::PlusEqBang},
        {"*=!", TokenKind::StarEqBang}, {"->", TokenKind::Arrow},
        {"+=", TokenKind::PlusEq},      {"*=", TokenKind::StarEq},
        {">=", TokenKind::GreaterEq},   {"<=", TokenKind::LessEq},
        {"==", TokenKind::EqEq},        {"!=", TokenKind::NotEq},
        {"&&", TokenKind::AndAnd},      {"||", TokenKind::OrOr},
        {"+", TokenKind::Plus},         {"-", TokenKind::Minus},
        {"*", TokenKind::Star},         {"/", TokenKind::Slash},
        {"%", TokenKind::Percent},      {"(", TokenKind::LParen},
        {")", TokenKind::RParen},       {"?", TokenKind::Question},
        {":", TokenKind::Colon},        {",", TokenKind::Comma},
        {"=", TokenKind::Assign},       {"{", TokenKind::LBrace},
        {"}", TokenKind::RBrace},       {"<", TokenKind::Less},
        {">", TokenKind::Greater},      {"!", TokenKind::Bang},
    };
    for (const auto& op : ops) {
      if (starts_with(op.text)) {
        pos_ += op.text.size();
        push(op.kind, begin);
        return;
      }
    }
    // An unknown character: report it (a whole UTF-8 sequence at once) and skip it.
    size_t len = 1;
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0xC0) len = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : 2;
    len = std::min(len, text_.size() - pos_);
    pos_ += len;
    std::string msg;
    if (u < 0x80) {
      msg = "unexpected character '" + std::string(1, c) + "'";
      if (c == ';') msg += "; statements have no terminator";
    } else {
      // Name the code point: a no-break space or a zero-width character shows nothing.
      uint32_t cp = len == 1 ? u : u & (0xFF >> (len + 1));
      for (size_t i = 1; i < len; ++i) cp = (cp << 6) | (static_cast<unsigned char>(text_[begin + i]) & 0x3F);
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", cp);
      bool invisible = cp == 0xA0 || (cp >= 0x2000 && cp <= 0x200F) || cp == 0x202F || cp == 0xFEFF || cp == 0x3000;
      msg = invisible ? std::string("unexpected invisible character ") + hex + " (retype it as a plain space)"
                      : "unexpected character '" + std::string(text_.substr(begin, len)) + "' (" + hex + ")";
    }
    diags_.error({begin, uint32_t(pos_)}, msg);
    // Kept as a token so the parser drops the statement around it quietly instead of
    // re-reading its tail as a new statement.
    push(TokenKind::Invalid, begin);
  }

  void lex_word(uint32_t begin) {
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
    std::string_view w = text_.substr(begin, pos_ - begin);
    TokenKind k = TokenKind::Identifier;
    if (w == "def") k = TokenKind::KwDef;
    else if (w == "where") k = TokenKind::KwWhere;
    else if (w == "in") k = TokenKind::KwIn;
    else if (w == "exists") k = TokenKind::KwExists;
    else if (w == "min" || w == "max") {
      // "min=" and "min=!" are reduction operators; a plain "min" is the operator min(a,b).
      bool is_min = w == "min";
      if (starts_with("=!")) {
        pos_ += 2;
        k = is_min ? TokenKind::MinEqBang : TokenKind::MaxEqBang;
      } else if (starts_with("=") && !starts_with("==")) {
        pos_ += 1;
        k = is_min ? TokenKind::MinEq : TokenKind::MaxEq;
      } else {
        k = is_min ? TokenKind::KwMin : TokenKind::KwMax;
      }
    } else if (scalar_type_from_name(w)) {
      k = TokenKind::KwType;
    }
    push(k, begin);
  }

  void lex_number(uint32_t begin) {
    bool is_float = false;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && is_digit(text_[pos_])) {
        is_float = true;
        while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      } else {
        pos_ = save + 1;
        if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
        while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
        diags_.error({begin, uint32_t(pos_)},
                     "malformed number '" + std::string(text_.substr(begin, pos_ - begin)) +
                         "': the exponent has no digits");
        push(TokenKind::Float, begin);
        return;
      }
    }
    if (pos_ < text_.size() && is_ident_start(text_[pos_])) {
      // "3x" or "2f": a number glued to letters.
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
      diags_.error({begin, uint32_t(pos_)},
                   "malformed number '" + std::string(text_.substr(begin, pos_ - begin)) + "'");
    }
    push(is_float ? TokenKind::Float : TokenKind::Integer, begin);
  }

  std::string_view text_;
  Diagnostics& diags_;
  size_t pos_ = 0;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lex(const SourceFile& file, Diagnostics& diags) {
  return Lexer(file, diags).run();
}

}  // namespace tcs
