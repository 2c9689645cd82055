#pragma once
// Tokens of the comprehension language (LANGUAGE.md §1), each with its byte range.
#include <cstdint>
#include <string_view>
#include <vector>

#include "lang/Source.h"

namespace tcs {

enum class TokenKind : uint8_t {
  End,
  Invalid,  // characters that start no token; the lexer has reported them
  Identifier,
  Integer,
  Float,
  // keywords
  KwDef, KwWhere, KwIn, KwExists, KwMin, KwMax,
  KwType,  // any scalar type keyword: bool uint8 ... float double
  // multi-character operators
  Arrow,        // ->
  Equivalent,   // <=>
  PlusEq, StarEq, MinEq, MaxEq,          // += *= min= max=
  PlusEqBang, StarEqBang, MinEqBang, MaxEqBang,  // +=! *=! min=! max=!
  GreaterEq, LessEq, EqEq, NotEq, AndAnd, OrOr,
  // single-character operators
  Plus, Minus, Star, Slash, Percent, LParen, RParen, Question, Colon, Comma, Assign,
  LBrace, RBrace, Less, Greater, Bang,
};

struct Token {
  TokenKind kind = TokenKind::End;
  SourceRange range;
  std::string_view text;  // view into the SourceFile's text
};

std::string_view token_kind_spelling(TokenKind k);  // "'->'", "identifier", ...
bool token_is_assign(TokenKind k);                   // = += ... max=!

}  // namespace tcs
