#include "views/code/CodeLexer.h"

#include <Qsci/qsciscintilla.h>

#include <QSet>
#include <algorithm>
#include <cctype>

#include "views/theme/Theme.h"

namespace tcs {

namespace {

const QSet<QString>& keyword_set(CodeLanguage lang) {
  static const QSet<QString> c = {"for", "if", "else", "return", "static", "const", "restrict", "inline", "void",
                                  "while", "do", "struct", "typedef", "__global__", "__device__", "__shared__",
                                  "extern", "sizeof", "pragma", "include", "define"};
  static const QSet<QString> ir = {"define", "declare", "ret", "br", "label", "phi", "load", "store", "call",
                                   "getelementptr", "inbounds", "alloca", "icmp", "fcmp", "add", "sub", "mul",
                                   "fadd", "fmul", "fsub", "fdiv", "select", "nsw", "nuw", "fast", "align",
                                   "noalias", "nocapture", "readonly", "writeonly", "tail", "to", "sext", "zext",
                                   "trunc", "bitcast", "shufflevector", "insertelement", "extractelement", "sdiv",
                                   "srem", "and", "or", "xor", "shl", "lshr", "ashr", "attributes", "entry"};
  static const QSet<QString> sched = {"domain", "band", "sequence", "set", "filter", "mark", "leaf", "context",
                                      "extension", "guard", "expansion", "permutable", "coincident", "parallel"};
  static const QSet<QString> none;
  switch (lang) {
    case CodeLanguage::C: return c;
    case CodeLanguage::LlvmIr: return ir;
    case CodeLanguage::ScheduleTree: return sched;
    default: return none;
  }
}

const QSet<QString>& type_set(CodeLanguage lang) {
  static const QSet<QString> c = {"float", "double", "int", "long", "char", "int8_t", "int16_t", "int32_t",
                                  "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "bool", "unsigned",
                                  "_Float16", "half", "size_t"};
  static const QSet<QString> ir = {"float", "double", "half", "void", "ptr", "i1", "i8", "i16", "i32", "i64",
                                   "x"};
  static const QSet<QString> none;
  switch (lang) {
    case CodeLanguage::C: return c;
    case CodeLanguage::LlvmIr: return ir;
    default: return none;
  }
}

bool word_char(QChar c) { return c.isLetterOrNumber() || c == '_' || c == '.' || c == '$'; }

}  // namespace

bool code_line_is_comment(CodeLanguage lang, const QString& line) {
  QString t = line.trimmed();
  switch (lang) {
    case CodeLanguage::C: return t.startsWith("//") || t.startsWith("/*") || t.startsWith("*");
    case CodeLanguage::LlvmIr: return t.startsWith(';');
    case CodeLanguage::Assembly: return t.startsWith('#');
    case CodeLanguage::Ptx: return t.startsWith("//");
    default: return false;
  }
}

bool code_line_is_directive(CodeLanguage lang, const QString& line) {
  QString t = line.trimmed();
  switch (lang) {
    case CodeLanguage::C: return t.startsWith('#');
    case CodeLanguage::LlvmIr: return t.startsWith('!') || t.startsWith("attributes") || t.startsWith("source_filename") ||
                                      t.startsWith("target ") || t.startsWith("declare");
    case CodeLanguage::Assembly: return t.startsWith('.') && !t.endsWith(':');
    case CodeLanguage::Ptx: return t.startsWith('.') && !t.startsWith(".reg") && !t.startsWith(".param");
    default: return false;
  }
}

CodeLexer::CodeLexer(CodeLanguage language, QObject* parent) : ThemedLexer(StyleCount, parent), lang_(language) {}

const char* CodeLexer::language() const {
  switch (lang_) {
    case CodeLanguage::C: return "C";
    case CodeLanguage::LlvmIr: return "LLVM IR";
    case CodeLanguage::Assembly: return "x86 assembly";
    case CodeLanguage::Ptx: return "PTX";
    case CodeLanguage::ScheduleTree: return "Schedule tree";
    case CodeLanguage::Plain: return "Text";
  }
  return "Text";
}

QString CodeLexer::description(int style) const {
  static const char* names[] = {"Default", "Comment", "Keyword", "Type", "Number", "String", "Directive", "Label",
                                "Register"};
  return style >= 0 && style < StyleCount ? QString::fromLatin1(names[style]) : QString();
}

QColor CodeLexer::defaultColor(int style) const {
  const Palette& p = tcs::palette(dark());
  switch (Style(style)) {
    case Comment: return p.comment;
    case Keyword: return p.keyword;
    case Type: return p.type;
    case Number: return p.number;
    case String: return p.string;
    case Directive: return p.directive;
    case Label: return p.label;
    case Register: return p.register_name;
    default: return p.text;
  }
}

QFont CodeLexer::defaultFont(int style) const { return code_font(style == Keyword || style == Label, style == Comment); }

// Styles whole lines from the line containing `start`: no state crosses a line.
void CodeLexer::styleText(int start, int end) {
  QsciScintilla* ed = editor();
  if (!ed) return;
  int first = int(ed->SendScintilla(QsciScintilla::SCI_LINEFROMPOSITION, long(start)));
  int last = int(ed->SendScintilla(QsciScintilla::SCI_LINEFROMPOSITION, long(end)));
  startStyling(int(ed->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, long(first))));
  for (int l = first; l <= last && l < ed->lines(); ++l) {
    QByteArray bytes = ed->text(l).toUtf8();
    QString line = QString::fromUtf8(bytes);
    // Styling counts bytes: walk the UTF-8 bytes, classify by ASCII characters.
    auto put = [&](int n, int style) {
      if (n > 0) setStyling(n, style);
    };
    if (code_line_is_comment(lang_, line)) {
      put(int(bytes.size()), Comment);
      continue;
    }
    if (code_line_is_directive(lang_, line) && lang_ != CodeLanguage::LlvmIr) {
      put(int(bytes.size()), Directive);
      continue;
    }
    int i = 0, n = int(bytes.size());
    while (i < n) {
      char c = bytes[i];
      int j = i + 1;
      int style = Default;
      bool comment_start = (lang_ == CodeLanguage::C || lang_ == CodeLanguage::Ptx) ? (c == '/' && i + 1 < n && bytes[i + 1] == '/')
                           : lang_ == CodeLanguage::LlvmIr ? c == ';'
                           : lang_ == CodeLanguage::Assembly ? c == '#'
                                                             : false;
      if (comment_start) {
        j = n;
        while (j > i && (bytes[j - 1] == '\n' || bytes[j - 1] == '\r')) --j;
        style = Comment;
      } else if (c == '"') {
        while (j < n && bytes[j] != '"') ++j;
        j = std::min(n, j + 1);
        style = String;
      } else if (c == '%' && lang_ == CodeLanguage::Assembly) {
        while (j < n && word_char(QChar(bytes[j]))) ++j;
        style = Register;
      } else if ((c == '%' || c == '@' || c == '!') && lang_ == CodeLanguage::LlvmIr) {
        while (j < n && word_char(QChar(bytes[j]))) ++j;
        style = c == '!' ? Directive : c == '@' ? Label : Register;
      } else if (c == '$' && lang_ == CodeLanguage::Assembly) {
        while (j < n && word_char(QChar(bytes[j]))) ++j;
        style = Number;
      } else if (std::isdigit(uchar(c))) {
        while (j < n && (std::isalnum(uchar(bytes[j])) || bytes[j] == '.')) ++j;
        style = Number;
      } else if (std::isalpha(uchar(c)) || c == '_' || c == '.') {
        while (j < n && word_char(QChar(bytes[j]))) ++j;
        QString word = QString::fromLatin1(bytes.mid(i, j - i));
        bool label = j < n && bytes[j] == ':';
        if (label && lang_ != CodeLanguage::ScheduleTree && lang_ != CodeLanguage::C) style = Label;
        else if (keyword_set(lang_).contains(word)) style = Keyword;
        else if (type_set(lang_).contains(word)) style = Type;
        else if (lang_ == CodeLanguage::Assembly && word.startsWith('.')) style = Directive;
        else if (lang_ == CodeLanguage::C && c == '#') style = Directive;
      } else if (c == '#' && lang_ == CodeLanguage::C) {
        j = n;
        style = Directive;
      } else if (uchar(c) >= 0x80) {
        while (j < n && uchar(bytes[j]) >= 0x80) ++j;
      }
      put(j - i, style);
      i = j;
    }
  }
}

}  // namespace tcs
