#pragma once
// Colouring for the generated texts: C and CUDA C, LLVM IR, x86 assembly (AT&T), PTX and
// the schedule tree. One small line tokenizer with a table per language; these texts are
// machine-written, so comments, keywords, numbers and labels are all a reader needs.
#include "views/theme/ThemedLexer.h"

namespace tcs {

enum class CodeLanguage { C, LlvmIr, Assembly, Ptx, ScheduleTree, Plain };

class CodeLexer : public ThemedLexer {
  Q_OBJECT
 public:
  enum Style { Default = 0, Comment, Keyword, Type, Number, String, Directive, Label, Register, StyleCount };

  CodeLexer(CodeLanguage language, QObject* parent = nullptr);

  const char* language() const override;
  QString description(int style) const override;
  QColor defaultColor(int style) const override;
  QFont defaultFont(int style) const override;
  void styleText(int start, int end) override;


 private:
  CodeLanguage lang_;
};

// Whether a line of generated text is a comment or an assembler/preprocessor directive
// (the panes can hide both).
bool code_line_is_comment(CodeLanguage lang, const QString& line);
bool code_line_is_directive(CodeLanguage lang, const QString& line);

}  // namespace tcs
