/*! \file parser.cc
 *  \brief Recursive-descent parser for the Python subset: statements with indentation
 *         blocks, decorators, annotations, and expressions with Python's precedence.
 */
#include "support/python_syntax/parser.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "support/python_syntax/lexer.h"
#include "support/resource_limits.h"

namespace mlc {
namespace script {

std::string DottedName(const AstPtr& node) {
  if (node == nullptr) return "";
  if (node->kind == AstKind::kName) return node->text;
  if (node->kind == AstKind::kAttribute) {
    std::string base = DottedName(node->a);
    return base.empty() ? "" : absl::StrCat(base, ".", node->text);
  }
  return "";
}

namespace {

/*! \brief Deep nesting is an error, not a stack overflow. */
constexpr int kMaxDepth = 200;

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::string& filename) : toks_(std::move(tokens)), filename_(filename) {}

  absl::StatusOr<AstPtr> Module() {
    auto mod = New(AstKind::kModule, Peek());
    while (Peek().kind != TokenKind::kEnd) {
      if (Peek().kind == TokenKind::kNewline) {
        ++pos_;
        continue;
      }
      absl::StatusOr<AstPtr> s = Statement();
      if (!s.ok()) return s.status();
      mod->body.push_back(*s);
    }
    return AstPtr(mod);
  }

 private:
  // ---- Token helpers.
  const Token& Peek(int ahead = 0) const {
    size_t i = std::min(pos_ + ahead, toks_.size() - 1);
    return toks_[i];
  }
  bool IsOp(const char* op, int ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kOp && t.text == op;
  }
  bool IsName(const char* name, int ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kName && t.text == name;
  }
  std::string Describe(const Token& t) const {
    switch (t.kind) {
      case TokenKind::kName: return absl::StrCat("'", t.text, "'");
      case TokenKind::kOp: return absl::StrCat("'", t.text, "'");
      case TokenKind::kString: return absl::StrCat("string \"", t.text, "\"");
      case TokenKind::kInt:
      case TokenKind::kFloat: return absl::StrCat("number ", t.text);
      default: return TokenKindName(t.kind);
    }
  }
  /*! \brief Records `node`'s depth from its children's, refusing trees deeper than the limit:
   *  everything after the parser (the converter, the destructor of the tree itself) recurses. */
  absl::Status Deepen(Ast* node) const {
    int d = 0;
    auto see = [&d](const AstPtr& c) {
      if (c != nullptr) d = std::max(d, c->depth);
    };
    see(node->a);
    see(node->b);
    see(node->c);
    for (const AstPtr& e : node->elts) see(e);
    for (const Keyword& k : node->keywords) see(k.value);
    node->depth = d + 1;
    if (node->depth <= GetResourceLimits().max_nesting_depth) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(filename_, ":", node->line, ":", node->col, ": expression nested more than ",
                     GetResourceLimits().max_nesting_depth, " levels deep (", LimitHint("max_nesting_depth"), ")"));
  }
  absl::Status ErrorAt(const Token& t, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(filename_, ":", t.line, ":", t.col, ": ", message));
  }
  absl::Status Expected(const std::string& what) const {
    return ErrorAt(Peek(), absl::StrCat("found ", Describe(Peek()), ", expected ", what));
  }
  absl::Status ExpectOp(const char* op) {
    if (!IsOp(op)) return Expected(absl::StrCat("'", op, "'"));
    ++pos_;
    return absl::OkStatus();
  }
  absl::Status ExpectNewline() {
    if (Peek().kind == TokenKind::kNewline) {
      ++pos_;
      return absl::OkStatus();
    }
    if (Peek().kind == TokenKind::kEnd) return absl::OkStatus();
    return Expected("end of line");
  }
  std::shared_ptr<Ast> New(AstKind kind, const Token& at) {
    auto node = std::make_shared<Ast>();
    node->kind = kind;
    node->line = at.line;
    node->col = at.col;
    return node;
  }

  // ---- Statements.
  absl::StatusOr<std::vector<AstPtr>> Suite() {
    // ':' NEWLINE INDENT stmt+ DEDENT, or ':' simple statement on the same line.
    if (absl::Status s = ExpectOp(":"); !s.ok()) return s;
    std::vector<AstPtr> body;
    if (Peek().kind != TokenKind::kNewline) {
      absl::StatusOr<AstPtr> s = SimpleStatement();
      if (!s.ok()) return s.status();
      body.push_back(*s);
      return body;
    }
    ++pos_;
    if (Peek().kind != TokenKind::kIndent) return Expected("an indented block");
    ++pos_;
    if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "blocks nested too deeply");
    while (Peek().kind != TokenKind::kDedent && Peek().kind != TokenKind::kEnd) {
      if (Peek().kind == TokenKind::kNewline) {
        ++pos_;
        continue;
      }
      absl::StatusOr<AstPtr> s = Statement();
      if (!s.ok()) return s.status();
      body.push_back(*s);
    }
    --depth_;
    if (Peek().kind == TokenKind::kDedent) ++pos_;
    return body;
  }

  absl::StatusOr<AstPtr> Statement() {
    const Token& t = Peek();
    if (IsOp("@")) return Decorated();
    if (IsName("def")) return FunctionDef({});
    if (IsName("class")) return ClassDef({});
    if (IsName("for")) return For();
    if (IsName("with")) return With();
    if (IsName("if")) return If();
    if (t.kind == TokenKind::kIndent) return ErrorAt(t, "unexpected indent");
    return SimpleStatement();
  }

  absl::StatusOr<AstPtr> Decorated() {
    std::vector<AstPtr> decorators;
    while (IsOp("@")) {
      ++pos_;
      absl::StatusOr<AstPtr> d = Expression();
      if (!d.ok()) return d.status();
      decorators.push_back(*d);
      if (absl::Status s = ExpectNewline(); !s.ok()) return s;
    }
    if (IsName("def")) return FunctionDef(std::move(decorators));
    if (IsName("class")) return ClassDef(std::move(decorators));
    return Expected("'def' or 'class' after a decorator");
  }

  absl::StatusOr<AstPtr> FunctionDef(std::vector<AstPtr> decorators) {
    auto node = New(AstKind::kFunctionDef, Peek());
    ++pos_;  // def
    if (Peek().kind != TokenKind::kName) return Expected("a function name");
    node->text = Peek().text;
    ++pos_;
    if (absl::Status s = ExpectOp("("); !s.ok()) return s;
    while (!IsOp(")")) {
      if (Peek().kind != TokenKind::kName) return Expected("a parameter name");
      Param p{Peek().text, nullptr, Peek().line, Peek().col};
      ++pos_;
      if (IsOp(":")) {
        ++pos_;
        absl::StatusOr<AstPtr> ann = Expression();
        if (!ann.ok()) return ann.status();
        p.annotation = *ann;
      }
      node->params.push_back(std::move(p));
      if (IsOp(",")) {
        ++pos_;
      } else if (!IsOp(")")) {
        return Expected("',' or ')' in the parameter list");
      }
    }
    ++pos_;
    if (IsOp("->")) {
      ++pos_;
      absl::StatusOr<AstPtr> ret = Expression();
      if (!ret.ok()) return ret.status();
      node->a = *ret;
    }
    absl::StatusOr<std::vector<AstPtr>> body = Suite();
    if (!body.ok()) return body.status();
    node->body = std::move(*body);
    node->decorators = std::move(decorators);
    return AstPtr(node);
  }

  absl::StatusOr<AstPtr> ClassDef(std::vector<AstPtr> decorators) {
    auto node = New(AstKind::kClassDef, Peek());
    ++pos_;  // class
    if (Peek().kind != TokenKind::kName) return Expected("a class name");
    node->text = Peek().text;
    ++pos_;
    if (IsOp("(")) {
      ++pos_;
      while (!IsOp(")")) {
        absl::StatusOr<AstPtr> base = Expression();
        if (!base.ok()) return base.status();
        if (IsOp(","))
          ++pos_;
        else if (!IsOp(")"))
          return Expected("')'");
      }
      ++pos_;
    }
    absl::StatusOr<std::vector<AstPtr>> body = Suite();
    if (!body.ok()) return body.status();
    node->body = std::move(*body);
    node->decorators = std::move(decorators);
    return AstPtr(node);
  }

  absl::StatusOr<AstPtr> For() {
    auto node = New(AstKind::kFor, Peek());
    ++pos_;  // for
    while (true) {
      if (Peek().kind != TokenKind::kName) return Expected("a loop variable name");
      auto name = New(AstKind::kName, Peek());
      name->text = Peek().text;
      node->elts.push_back(name);
      ++pos_;
      if (IsOp(",")) {
        ++pos_;
        continue;
      }
      break;
    }
    if (!IsName("in")) return Expected("'in'");
    ++pos_;
    absl::StatusOr<AstPtr> iter = Expression();
    if (!iter.ok()) return iter.status();
    node->a = *iter;
    absl::StatusOr<std::vector<AstPtr>> body = Suite();
    if (!body.ok()) return body.status();
    node->body = std::move(*body);
    return AstPtr(node);
  }

  absl::StatusOr<AstPtr> With() {
    auto node = New(AstKind::kWith, Peek());
    ++pos_;  // with
    absl::StatusOr<AstPtr> ctx = Expression();
    if (!ctx.ok()) return ctx.status();
    node->a = *ctx;
    if (IsName("as")) {
      ++pos_;
      absl::StatusOr<AstPtr> target = TargetList();
      if (!target.ok()) return target.status();
      node->b = *target;
    }
    absl::StatusOr<std::vector<AstPtr>> body = Suite();
    if (!body.ok()) return body.status();
    node->body = std::move(*body);
    return AstPtr(node);
  }

  absl::StatusOr<AstPtr> If() {
    auto node = New(AstKind::kIf, Peek());
    ++pos_;  // if / elif
    absl::StatusOr<AstPtr> test = Expression();
    if (!test.ok()) return test.status();
    node->a = *test;
    absl::StatusOr<std::vector<AstPtr>> body = Suite();
    if (!body.ok()) return body.status();
    node->body = std::move(*body);
    if (IsName("elif")) {
      absl::StatusOr<AstPtr> elif = If();
      if (!elif.ok()) return elif.status();
      node->orelse.push_back(*elif);
    } else if (IsName("else")) {
      ++pos_;
      absl::StatusOr<std::vector<AstPtr>> orelse = Suite();
      if (!orelse.ok()) return orelse.status();
      node->orelse = std::move(*orelse);
    }
    return AstPtr(node);
  }

  /*! \brief Targets of an assignment: `a` or `a, b` (a tuple). */
  absl::StatusOr<AstPtr> TargetList() {
    const Token& start = Peek();
    absl::StatusOr<AstPtr> first = Expression();
    if (!first.ok()) return first.status();
    if (!IsOp(",")) return first;
    auto tuple = New(AstKind::kTuple, start);
    tuple->elts.push_back(*first);
    while (IsOp(",")) {
      ++pos_;
      if (IsOp("=") || IsOp(":") || Peek().kind == TokenKind::kNewline) break;
      absl::StatusOr<AstPtr> next = Expression();
      if (!next.ok()) return next.status();
      tuple->elts.push_back(*next);
    }
    return AstPtr(tuple);
  }

  absl::StatusOr<AstPtr> SimpleStatement() {
    const Token& start = Peek();
    if (IsName("pass")) {
      ++pos_;
      if (absl::Status s = ExpectNewline(); !s.ok()) return s;
      return AstPtr(New(AstKind::kPass, start));
    }
    if (IsName("import") || IsName("from")) {
      // Imports carry no meaning for TVMScript; skip to the end of the line.
      while (Peek().kind != TokenKind::kNewline && Peek().kind != TokenKind::kEnd) ++pos_;
      if (absl::Status s = ExpectNewline(); !s.ok()) return s;
      return AstPtr(New(AstKind::kImport, start));
    }
    if (IsName("return")) {
      auto node = New(AstKind::kReturn, start);
      ++pos_;
      if (Peek().kind != TokenKind::kNewline && Peek().kind != TokenKind::kEnd) {
        absl::StatusOr<AstPtr> value = TargetList();
        if (!value.ok()) return value.status();
        node->a = *value;
      }
      if (absl::Status s = ExpectNewline(); !s.ok()) return s;
      return AstPtr(node);
    }
    absl::StatusOr<AstPtr> lhs = TargetList();
    if (!lhs.ok()) return lhs.status();
    std::shared_ptr<Ast> node;
    if (IsOp("=")) {
      node = New(AstKind::kAssign, start);
      ++pos_;
      node->a = *lhs;
      absl::StatusOr<AstPtr> value = TargetList();
      if (!value.ok()) return value.status();
      node->b = *value;
    } else if (IsOp(":")) {
      node = New(AstKind::kAnnAssign, start);
      ++pos_;
      node->a = *lhs;
      absl::StatusOr<AstPtr> ann = Expression();
      if (!ann.ok()) return ann.status();
      node->c = *ann;
      if (IsOp("=")) {
        ++pos_;
        absl::StatusOr<AstPtr> value = TargetList();
        if (!value.ok()) return value.status();
        node->b = *value;
      }
    } else if (Peek().kind == TokenKind::kOp && Peek().text.size() >= 2 && Peek().text.back() == '=' &&
               Peek().text != "==" && Peek().text != "<=" && Peek().text != ">=" && Peek().text != "!=") {
      node = New(AstKind::kAugAssign, start);
      node->text = Peek().text.substr(0, Peek().text.size() - 1);
      ++pos_;
      node->a = *lhs;
      absl::StatusOr<AstPtr> value = Expression();
      if (!value.ok()) return value.status();
      node->b = *value;
    } else {
      node = New(AstKind::kExprStmt, start);
      node->a = *lhs;
    }
    if (absl::Status s = ExpectNewline(); !s.ok()) return s;
    return AstPtr(node);
  }

  // ---- Expressions, lowest precedence first.
  absl::StatusOr<AstPtr> Expression() {
    if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "expression nested too deeply");
    absl::StatusOr<AstPtr> e = IsName("lambda") ? Lambda() : OrExpr();
    --depth_;
    return e;
  }

  /*! \brief lambda a, b: expr */
  absl::StatusOr<AstPtr> Lambda() {
    auto node = New(AstKind::kLambda, Peek());
    ++pos_;
    while (!IsOp(":")) {
      if (Peek().kind != TokenKind::kName) return Expected("a parameter name or ':'");
      node->params.push_back(Param{Peek().text, nullptr, Peek().line, Peek().col});
      ++pos_;
      if (IsOp(",")) ++pos_;
    }
    ++pos_;
    absl::StatusOr<AstPtr> body = Expression();
    if (!body.ok()) return body;
    node->a = *body;
    return AstPtr(node);
  }

  absl::StatusOr<AstPtr> OrExpr() {
    return BoolChain("or", [this] { return AndExpr(); });
  }
  absl::StatusOr<AstPtr> AndExpr() {
    return BoolChain("and", [this] { return NotExpr(); });
  }

  template <typename Next>
  absl::StatusOr<AstPtr> BoolChain(const char* op, Next next) {
    absl::StatusOr<AstPtr> lhs = next();
    if (!lhs.ok()) return lhs;
    while (IsName(op)) {
      auto node = New(AstKind::kBoolOp, Peek());
      ++pos_;
      absl::StatusOr<AstPtr> rhs = next();
      if (!rhs.ok()) return rhs;
      node->text = op;
      node->a = *lhs;
      node->b = *rhs;
      if (absl::Status s = Deepen(node.get()); !s.ok()) return s;
      lhs = AstPtr(node);
    }
    return lhs;
  }

  absl::StatusOr<AstPtr> NotExpr() {
    if (IsName("not")) {
      auto node = New(AstKind::kUnaryOp, Peek());
      ++pos_;
      if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "expression nested too deeply");
      absl::StatusOr<AstPtr> operand = NotExpr();
      --depth_;
      if (!operand.ok()) return operand;
      node->text = "not";
      node->a = *operand;
      return AstPtr(node);
    }
    return Comparison();
  }

  absl::StatusOr<AstPtr> Comparison() {
    absl::StatusOr<AstPtr> lhs = Arith();
    if (!lhs.ok()) return lhs;
    AstPtr result;
    AstPtr left = *lhs;
    static const char* kOps[] = {"<", "<=", ">", ">=", "==", "!="};
    while (true) {
      const char* op = nullptr;
      for (const char* o : kOps) {
        if (IsOp(o)) op = o;
      }
      if (op == nullptr) break;
      auto node = New(AstKind::kCompare, Peek());
      ++pos_;
      absl::StatusOr<AstPtr> rhs = Arith();
      if (!rhs.ok()) return rhs;
      node->text = op;
      node->a = left;
      node->b = *rhs;
      if (absl::Status s = Deepen(node.get()); !s.ok()) return s;
      // a < b < c means (a < b) and (b < c).
      if (result == nullptr) {
        result = node;
      } else {
        auto conj = New(AstKind::kBoolOp, *&Peek());
        conj->text = "and";
        conj->a = result;
        conj->b = node;
        if (absl::Status s = Deepen(conj.get()); !s.ok()) return s;
        result = conj;
      }
      left = *rhs;
    }
    return result != nullptr ? result : left;
  }

  absl::StatusOr<AstPtr> Arith() {
    return BinaryLevel({"+", "-"}, [this] { return Term(); });
  }
  absl::StatusOr<AstPtr> Term() {
    return BinaryLevel({"*", "/", "//", "%"}, [this] { return Unary(); });
  }

  template <typename Next>
  absl::StatusOr<AstPtr> BinaryLevel(std::initializer_list<const char*> ops, Next next) {
    absl::StatusOr<AstPtr> lhs = next();
    if (!lhs.ok()) return lhs;
    while (true) {
      const char* op = nullptr;
      for (const char* o : ops) {
        if (IsOp(o)) op = o;
      }
      if (op == nullptr) return lhs;
      auto node = New(AstKind::kBinOp, Peek());
      ++pos_;
      absl::StatusOr<AstPtr> rhs = next();
      if (!rhs.ok()) return rhs;
      node->text = op;
      node->a = *lhs;
      node->b = *rhs;
      if (absl::Status s = Deepen(node.get()); !s.ok()) return s;
      lhs = AstPtr(node);
    }
  }

  absl::StatusOr<AstPtr> Unary() {
    if (IsOp("-") || IsOp("+")) {
      auto node = New(AstKind::kUnaryOp, Peek());
      node->text = Peek().text;
      ++pos_;
      if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "expression nested too deeply");
      absl::StatusOr<AstPtr> operand = Unary();
      --depth_;
      if (!operand.ok()) return operand;
      node->a = *operand;
      return AstPtr(node);
    }
    return Power();
  }

  absl::StatusOr<AstPtr> Power() {
    absl::StatusOr<AstPtr> base = Primary();
    if (!base.ok()) return base;
    if (!IsOp("**")) return base;
    auto node = New(AstKind::kBinOp, Peek());
    ++pos_;
    if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "expression nested too deeply");
    absl::StatusOr<AstPtr> exp = Unary();
    --depth_;
    if (!exp.ok()) return exp;
    node->text = "**";
    node->a = *base;
    node->b = *exp;
    return AstPtr(node);
  }

  absl::StatusOr<AstPtr> Primary() {
    size_t start = pos_;
    absl::StatusOr<AstPtr> atom = Atom();
    if (!atom.ok()) return atom;
    AstPtr node = *atom;
    while (true) {
      // Attribute, call and subscript nodes are positioned at the start of their base, as
      // Python's ast does, so errors point at the callee rather than the bracket.
      if (IsOp(".")) {
        auto attr = New(AstKind::kAttribute, toks_[start]);
        ++pos_;
        if (Peek().kind != TokenKind::kName) return Expected("an attribute name after '.'");
        attr->text = Peek().text;
        ++pos_;
        attr->a = node;
        if (absl::Status s = Deepen(attr.get()); !s.ok()) return s;
        node = attr;
      } else if (IsOp("(")) {
        auto call = New(AstKind::kCall, toks_[start]);
        ++pos_;
        call->a = node;
        while (!IsOp(")")) {
          if (Peek().kind == TokenKind::kName && IsOp("=", 1)) {
            Keyword kw{Peek().text, nullptr};
            pos_ += 2;
            absl::StatusOr<AstPtr> value = Expression();
            if (!value.ok()) return value;
            kw.value = *value;
            call->keywords.push_back(std::move(kw));
          } else {
            if (!call->keywords.empty()) return ErrorAt(Peek(), "positional argument after keyword argument");
            if (IsOp("*")) return ErrorAt(Peek(), "star arguments are not supported");
            absl::StatusOr<AstPtr> arg = Expression();
            if (!arg.ok()) return arg;
            call->elts.push_back(*arg);
          }
          if (IsOp(",")) {
            ++pos_;
          } else if (!IsOp(")")) {
            return Expected("',' or ')' in the argument list");
          }
        }
        ++pos_;
        if (absl::Status s = Deepen(call.get()); !s.ok()) return s;
        node = call;
      } else if (IsOp("[")) {
        auto sub = New(AstKind::kSubscript, toks_[start]);
        ++pos_;
        sub->a = node;
        absl::StatusOr<AstPtr> index = SubscriptList();
        if (!index.ok()) return index;
        sub->b = *index;
        if (absl::Status s = ExpectOp("]"); !s.ok()) return s;
        if (absl::Status s = Deepen(sub.get()); !s.ok()) return s;
        node = sub;
      } else {
        return node;
      }
    }
  }

  absl::StatusOr<AstPtr> SliceOrExpr() {
    const Token& start = Peek();
    AstPtr lower;
    if (!IsOp(":")) {
      absl::StatusOr<AstPtr> e = Expression();
      if (!e.ok()) return e;
      lower = *e;
      if (!IsOp(":")) return lower;
    }
    auto slice = New(AstKind::kSlice, start);
    ++pos_;  // ':'
    slice->a = lower;
    if (!IsOp(",") && !IsOp("]")) {
      absl::StatusOr<AstPtr> upper = Expression();
      if (!upper.ok()) return upper;
      slice->b = *upper;
    }
    return AstPtr(slice);
  }

  absl::StatusOr<AstPtr> SubscriptList() {
    const Token& start = Peek();
    absl::StatusOr<AstPtr> first = SliceOrExpr();
    if (!first.ok()) return first;
    if (!IsOp(",")) return first;
    auto tuple = New(AstKind::kTuple, start);
    tuple->elts.push_back(*first);
    while (IsOp(",")) {
      ++pos_;
      if (IsOp("]")) break;
      absl::StatusOr<AstPtr> next = SliceOrExpr();
      if (!next.ok()) return next;
      tuple->elts.push_back(*next);
    }
    return AstPtr(tuple);
  }

  absl::StatusOr<AstPtr> Atom() {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kName: {
        ++pos_;
        if (t.text == "True" || t.text == "False") {
          auto node = New(AstKind::kBool, t);
          node->int_value = t.text == "True";
          return AstPtr(node);
        }
        if (t.text == "None") return AstPtr(New(AstKind::kNone, t));
        static const char* kKeywords[] = {"def", "class", "for", "in",   "with",   "return", "if", "else",   "elif",
                                          "and", "or",    "not", "pass", "import", "from",   "as", "lambda", "while"};
        for (const char* kw : kKeywords) {
          if (t.text == kw) {
            --pos_;
            return Expected("an expression");
          }
        }
        auto node = New(AstKind::kName, t);
        node->text = t.text;
        return AstPtr(node);
      }
      case TokenKind::kInt: {
        ++pos_;
        auto node = New(AstKind::kInt, t);
        if (!absl::SimpleAtoi(t.text, &node->int_value))
          return ErrorAt(t, absl::StrCat("integer ", t.text, " is out of range"));
        return AstPtr(node);
      }
      case TokenKind::kFloat: {
        ++pos_;
        auto node = New(AstKind::kFloat, t);
        node->float_value = std::strtod(t.text.c_str(), nullptr);
        return AstPtr(node);
      }
      case TokenKind::kString: {
        ++pos_;
        auto node = New(AstKind::kString, t);
        node->text = t.text;
        // Adjacent literals concatenate.
        while (Peek().kind == TokenKind::kString) {
          node->text += Peek().text;
          ++pos_;
        }
        return AstPtr(node);
      }
      case TokenKind::kOp:
        if (t.text == "(") return Bracketed(AstKind::kTuple, ")");
        if (t.text == "[") return Bracketed(AstKind::kList, "]");
        if (t.text == "{") return DictLiteral();
        return Expected("an expression");
      default: return Expected("an expression");
    }
  }

  /*! \brief (a), (a,), (a, b), [], [a, b]. A parenthesized single expression is itself. */
  absl::StatusOr<AstPtr> Bracketed(AstKind kind, const char* close) {
    auto node = New(kind, Peek());
    ++pos_;
    bool trailing_comma = false;
    while (!IsOp(close)) {
      absl::StatusOr<AstPtr> e = Expression();
      if (!e.ok()) return e;
      node->elts.push_back(*e);
      trailing_comma = false;
      if (IsOp(",")) {
        ++pos_;
        trailing_comma = true;
      } else if (!IsOp(close)) {
        return Expected(absl::StrCat("',' or '", close, "'"));
      }
    }
    ++pos_;
    if (kind == AstKind::kTuple && node->elts.size() == 1 && !trailing_comma) return node->elts[0];
    return AstPtr(node);
  }

  absl::StatusOr<AstPtr> DictLiteral() {
    auto node = New(AstKind::kDict, Peek());
    ++pos_;
    while (!IsOp("}")) {
      absl::StatusOr<AstPtr> key = Expression();
      if (!key.ok()) return key;
      if (absl::Status s = ExpectOp(":"); !s.ok()) return s;
      absl::StatusOr<AstPtr> value = Expression();
      if (!value.ok()) return value;
      node->elts.push_back(*key);
      node->elts.push_back(*value);
      if (IsOp(",")) {
        ++pos_;
      } else if (!IsOp("}")) {
        return Expected("',' or '}'");
      }
    }
    ++pos_;
    return AstPtr(node);
  }

  std::vector<Token> toks_;
  const std::string& filename_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<AstPtr> ParsePython(const std::string& source, const std::string& filename) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(source, filename);
  if (!tokens.ok()) return tokens.status();
  return Parser(std::move(*tokens), filename).Module();
}

}  // namespace script
}  // namespace mlc
