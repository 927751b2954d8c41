#include "dsl/expr_text_tokens.h"

#include <cctype>

namespace cusched::expr_text {

namespace {

const std::vector<std::string>& punctuation() {
  static const std::vector<std::string> p = {"==", "!=", "<=", ">=", "&&", "||", "(", ")", ",", ":",
                                             "=",  "<",  ">",  "!",  "+",  "-",  "*", "/", "%", "^"};
  return p;
}

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::vector<Token> tokenize(const std::string& text, const std::function<void(const Token&)>& reject) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (true) {
    bool glued = true;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i, glued = false;
    Token t;
    t.pos = i;
    t.glued = glued;
    if (i >= text.size()) {
      tokens.push_back(t);
      return tokens;
    }
    const char c = text[i];
    size_t j = i;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (j < text.size() && is_name_char(text[j])) ++j;
      t.kind = TokenKind::Ident;
    } else if (is_digit(c) || (c == '.' && i + 1 < text.size() && is_digit(text[i + 1]))) {
      while (j < text.size() && (is_digit(text[j]) || text[j] == '.')) ++j;
      if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
        size_t k = j + 1;
        if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
        if (k < text.size() && is_digit(text[k])) {
          j = k;
          while (j < text.size() && is_digit(text[j])) ++j;
        }
      }
      while (j < text.size() && is_name_char(text[j])) ++j;
      t.kind = TokenKind::Number;
    } else {
      t.kind = TokenKind::Punct;
      for (const auto& p : punctuation())
        if (text.compare(i, p.size(), p) == 0) {
          t.text = p;
          break;
        }
      if (t.text.empty()) {
        t.text = std::string(1, c);
        reject(t);
      }
      j = i + t.text.size();
    }
    if (t.text.empty()) t.text = text.substr(i, j - i);
    i = j;
    tokens.push_back(t);
  }
}

}  // namespace cusched::expr_text
