#include "ForwardReferences.h"

#include <cctype>
#include <set>
#include <vector>

namespace tessera::compiler {
namespace {

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '-';
}

class Scanner {
public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::optional<ForwardReference> run() {
    scopes_.emplace_back();
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '/' && peek(1) == '/') {
        while (at_ < text_.size() && text_[at_] != '\n') advance();
      } else if (c == '"') {
        skipString();
      } else if (c == '{') {
        scopes_.emplace_back();
        advance();
      } else if (c == '}') {
        if (scopes_.size() > 1) scopes_.pop_back();
        advance();
      } else if (c == '(') {
        // An argument list: right after `@symbol` or `^block`.
        argumentLists_.push_back(afterSymbol_);
        advance();
      } else if (c == ')') {
        if (!argumentLists_.empty()) argumentLists_.pop_back();
        advance();
      } else if (c == '%') {
        if (std::optional<ForwardReference> found = value()) return found;
        continue;
      } else if (c == '@' || c == '^') {
        advance();
        while (at_ < text_.size() && (isNameChar(text_[at_]) || text_[at_] == '"')) advance();
        afterSymbol_ = true;
        continue;
      } else {
        advance();
      }
      if (!std::isspace(static_cast<unsigned char>(c))) afterSymbol_ = false;
    }
    return std::nullopt;
  }

private:
  char peek(size_t ahead) const { return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0'; }

  void advance() {
    if (text_[at_] == '\n') {
      ++line_;
      column_ = 1;
      statementStart_ = true;
    } else {
      ++column_;
      if (!std::isspace(static_cast<unsigned char>(text_[at_]))) statementStart_ = false;
    }
    ++at_;
  }

  void skipString() {
    advance();
    while (at_ < text_.size() && text_[at_] != '"') {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) advance();
      advance();
    }
    if (at_ < text_.size()) advance();
  }

  /// The position after spaces and tabs from `from`.
  size_t skipBlanks(size_t from) const {
    while (from < text_.size() && (text_[from] == ' ' || text_[from] == '\t')) ++from;
    return from;
  }

  /// Whether the `%` at `at_` starts a statement's result list `%a, %b:2 = ...`.
  bool resultList() const {
    size_t i = at_;
    while (i < text_.size() && text_[i] == '%') {
      ++i;
      while (i < text_.size() && isNameChar(text_[i])) ++i;
      if (i < text_.size() && text_[i] == ':') { // %0:2, a result group
        ++i;
        while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
      }
      i = skipBlanks(i);
      if (i < text_.size() && text_[i] == '=' && (i + 1 >= text_.size() || text_[i + 1] != '=')) return true;
      if (i >= text_.size() || text_[i] != ',') return false;
      i = skipBlanks(i + 1);
    }
    return false;
  }

  /// The `%name` at `at_`, read.
  std::string name() {
    const size_t start = at_;
    advance();
    while (at_ < text_.size() && isNameChar(text_[at_])) advance();
    return std::string(text_.substr(start, at_ - start));
  }

  /// Reads the result list `%a, %b:2` at `at_` (up to its `=`), defining each name.
  void defineResults() {
    while (at_ < text_.size() && text_[at_] == '%') {
      scopes_.back().insert(name());
      if (at_ < text_.size() && text_[at_] == ':')
        for (advance(); at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]));) advance();
      while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) advance();
      if (at_ >= text_.size() || text_[at_] != ',') return;
      advance();
      while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) advance();
    }
  }

  /// Reads the `%name` at `at_`: records a definition, or checks a use.
  std::optional<ForwardReference> value() {
    if (statementStart_ && resultList()) {
      defineResults();
      return std::nullopt;
    }
    const uint32_t line = line_, column = column_;
    const std::string read = name();
    const size_t next = skipBlanks(at_);
    const char follows = next < text_.size() ? text_[next] : '\0';
    const bool assigned = follows == '=' && (next + 1 >= text_.size() || text_[next + 1] != '=');
    const bool argument = follows == ':' && !argumentLists_.empty() && argumentLists_.back();
    if (assigned || argument) {
      scopes_.back().insert(read);
      return std::nullopt;
    }
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
      if (scope->count(read)) return std::nullopt;
    return ForwardReference{read, line, column};
  }

  std::string_view text_;
  size_t at_ = 0;
  uint32_t line_ = 1, column_ = 1;
  bool statementStart_ = true; ///< nothing but blanks since the line began
  bool afterSymbol_ = false;   ///< the last token was `@symbol` or `^block`
  std::vector<std::set<std::string>> scopes_;
  std::vector<bool> argumentLists_; ///< per open parenthesis: whether it holds arguments
};

} // namespace

std::optional<ForwardReference> findForwardReference(std::string_view text) { return Scanner(text).run(); }

} // namespace tessera::compiler
