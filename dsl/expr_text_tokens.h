#pragma once
// The tokens of the expression text syntax: names, numbers (with any suffix letters,
// which the parser judges) and the punctuation of the operators.
#include <functional>
#include <string>
#include <vector>

namespace cusched::expr_text {

enum class TokenKind { Ident, Number, Punct, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  size_t pos = 0;      // offset of its first character in the text
  bool glued = false;  // no whitespace before it
};

// The tokens of `text`, the last one of kind End. A character outside the syntax is
// handed to `reject` as a one-character Punct token; `reject` must throw.
std::vector<Token> tokenize(const std::string& text, const std::function<void(const Token&)>& reject);

}  // namespace cusched::expr_text
