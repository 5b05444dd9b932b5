/*! \file lexer.cc
 *  \brief The tokenizer: Python's rules for comments, strings, numbers, brackets and
 *         indentation, restricted to what TVMScript uses.
 */
#include "support/python_syntax/lexer.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace script {

const char* TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName: return "name";
    case TokenKind::kInt: return "integer";
    case TokenKind::kFloat: return "number";
    case TokenKind::kString: return "string";
    case TokenKind::kOp: return "operator";
    case TokenKind::kNewline: return "end of line";
    case TokenKind::kIndent: return "indent";
    case TokenKind::kDedent: return "dedent";
    case TokenKind::kEnd: return "end of file";
  }
  return "token";
}

namespace {

class Lexer {
 public:
  Lexer(const std::string& src, const std::string& filename) : src_(src), filename_(filename) {}

  absl::StatusOr<std::vector<Token>> Run() {
    indents_.push_back(0);
    bool at_line_start = true;
    while (pos_ < src_.size()) {
      if (at_line_start && depth_ == 0) {
        absl::Status s = LineStart();
        if (!s.ok()) return s;
        at_line_start = false;
        if (pos_ >= src_.size()) break;
      }
      char c = src_[pos_];
      if (c == '\n') {
        if (depth_ == 0 && !tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
            tokens_.back().kind != TokenKind::kIndent && tokens_.back().kind != TokenKind::kDedent) {
          Emit(TokenKind::kNewline, "", line_, col_);
        }
        Advance();
        // Inside brackets lines join: no indentation processing until they close.
        at_line_start = depth_ == 0;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        Advance();
        continue;
      }
      if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n') Advance();
        continue;
      }
      if (c == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') {
        Advance();
        Advance();
        continue;
      }
      absl::Status s = OneToken();
      if (!s.ok()) return s;
    }
    if (depth_ > 0)
      return Error(bracket_line_, bracket_col_, absl::StrCat("unclosed '", std::string(1, bracket_), "'"));
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::kNewline) Emit(TokenKind::kNewline, "", line_, col_);
    while (indents_.size() > 1) {
      indents_.pop_back();
      Emit(TokenKind::kDedent, "", line_, col_);
    }
    Emit(TokenKind::kEnd, "", line_, col_);
    return std::move(tokens_);
  }

 private:
  absl::Status Error(int line, int col, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(filename_, ":", line, ":", col, ": ", message));
  }

  void Advance() {
    if (src_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void Emit(TokenKind kind, std::string text, int line, int col) {
    tokens_.push_back({kind, std::move(text), line, col});
  }

  /*! \brief Measures indentation; blank and comment-only lines do not count. */
  absl::Status LineStart() {
    while (true) {
      int width = 0;
      size_t p = pos_;
      while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t')) {
        if (src_[p] == '\t')
          return Error(line_, static_cast<int>(p - pos_) + 1, "tab in indentation; indent with spaces");
        ++width;
        ++p;
      }
      if (p >= src_.size()) {
        while (pos_ < p) Advance();
        return absl::OkStatus();
      }
      if (src_[p] == '\n' || src_[p] == '#' || src_[p] == '\r') {
        while (pos_ < src_.size() && src_[pos_] != '\n') Advance();
        if (pos_ < src_.size()) Advance();
        continue;
      }
      while (pos_ < p) Advance();
      if (width > indents_.back()) {
        if (tokens_.empty() || tokens_.back().kind != TokenKind::kNewline) {
          return Error(line_, col_, "unexpected indent");
        }
        indents_.push_back(width);
        Emit(TokenKind::kIndent, "", line_, col_);
      } else {
        while (width < indents_.back()) {
          indents_.pop_back();
          Emit(TokenKind::kDedent, "", line_, col_);
        }
        if (width != indents_.back()) {
          return Error(line_, col_, "unindent does not match any outer indentation level");
        }
      }
      return absl::OkStatus();
    }
  }

  absl::Status OneToken() {
    int line = line_, col = col_;
    char c = src_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string name;
      while (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
        name += src_[pos_];
        Advance();
      }
      // String prefixes (r"...", b"...") are not used by TVMScript.
      Emit(TokenKind::kName, name, line, col);
      return absl::OkStatus();
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
      return Number(line, col);
    }
    if (c == '"' || c == '\'') return String(line, col);
    static const char* kThree[] = {"**=", "//=", "..."};
    static const char* kTwo[] = {"->", "**", "//", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=", "%="};
    for (const char* op : kThree) {
      if (src_.compare(pos_, 3, op) == 0) {
        for (int i = 0; i < 3; ++i) Advance();
        Emit(TokenKind::kOp, op, line, col);
        return absl::OkStatus();
      }
    }
    for (const char* op : kTwo) {
      if (src_.compare(pos_, 2, op) == 0) {
        Advance();
        Advance();
        Emit(TokenKind::kOp, op, line, col);
        return absl::OkStatus();
      }
    }
    static const std::string kOne = "()[]{},:.=@+-*/%<>~&|^;";
    if (kOne.find(c) == std::string::npos) {
      return Error(line, col, absl::StrCat("unexpected character '", std::string(1, c), "'"));
    }
    if (c == '(' || c == '[' || c == '{') {
      if (depth_ == 0) {
        bracket_ = c;
        bracket_line_ = line;
        bracket_col_ = col;
      }
      ++depth_;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth_ == 0) return Error(line, col, absl::StrCat("unmatched '", std::string(1, c), "'"));
      --depth_;
    }
    Advance();
    Emit(TokenKind::kOp, std::string(1, c), line, col);
    return absl::OkStatus();
  }

  absl::Status Number(int line, int col) {
    std::string text;
    bool is_float = false;
    auto digits = [&] {
      while (pos_ < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
        if (src_[pos_] != '_') text += src_[pos_];
        Advance();
      }
    };
    digits();
    if (pos_ < src_.size() && src_[pos_] == '.') {
      is_float = true;
      text += '.';
      Advance();
      digits();
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      is_float = true;
      text += 'e';
      Advance();
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) {
        text += src_[pos_];
        Advance();
      }
      size_t before = text.size();
      digits();
      if (text.size() == before) return Error(line, col, "malformed number: exponent has no digits");
    }
    if (pos_ < src_.size() && (std::isalpha(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
      return Error(line_, col_, absl::StrCat("malformed number '", text, std::string(1, src_[pos_]), "'"));
    }
    Emit(is_float ? TokenKind::kFloat : TokenKind::kInt, text, line, col);
    return absl::OkStatus();
  }

  absl::Status String(int line, int col) {
    char quote = src_[pos_];
    bool triple = src_.compare(pos_, 3, std::string(3, quote)) == 0;
    for (int i = 0; i < (triple ? 3 : 1); ++i) Advance();
    std::string value;
    while (true) {
      if (pos_ >= src_.size()) return Error(line, col, "unterminated string literal");
      char c = src_[pos_];
      if (!triple && c == '\n') return Error(line, col, "unterminated string literal (end of line inside the string)");
      if (c == quote && (!triple || src_.compare(pos_, 3, std::string(3, quote)) == 0)) {
        for (int i = 0; i < (triple ? 3 : 1); ++i) Advance();
        break;
      }
      if (c == '\\') {
        Advance();
        if (pos_ >= src_.size()) return Error(line, col, "unterminated string literal");
        char e = src_[pos_];
        switch (e) {
          case 'n': value += '\n'; break;
          case 't': value += '\t'; break;
          case '\\':
          case '\'':
          case '"': value += e; break;
          case '\n': break;
          default: value += '\\'; value += e;
        }
        Advance();
        continue;
      }
      value += c;
      Advance();
    }
    Emit(TokenKind::kString, value, line, col);
    return absl::OkStatus();
  }

  const std::string& src_;
  const std::string& filename_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
  int depth_ = 0;
  char bracket_ = 0;
  int bracket_line_ = 0, bracket_col_ = 0;
  std::vector<int> indents_;
  std::vector<Token> tokens_;
};

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(const std::string& source, const std::string& filename) {
  return Lexer(source, filename).Run();
}

}  // namespace script
}  // namespace mlc
