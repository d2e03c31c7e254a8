#include "tools/input/nesting.h"

#include <fmt/format.h>

namespace blksim::input {

std::optional<TextPosition> json_nesting_exceeded(std::string_view text, int max_depth) {
    TextPosition at;
    int depth = 0;
    const auto advance = [&](std::size_t& i) {
        if (text[i] == '\n') {
            ++at.line;
            at.column = 1;
        } else {
            ++at.column;
        }
        ++i;
    };
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"') {
            advance(i);
            while (i < text.size() && text[i] != '"') {
                if (text[i] == '\\' && i + 1 < text.size())
                    advance(i);
                advance(i);
            }
            if (i < text.size())
                advance(i);
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                advance(i);
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            advance(i);
            advance(i);
            while (i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/'))
                advance(i);
            if (i < text.size()) {
                advance(i);
                advance(i);
            }
        } else {
            if (c == '[' || c == '{') {
                if (++depth > max_depth)
                    return at;
            } else if ((c == ']' || c == '}') && depth > 0) {
                --depth;
            }
            advance(i);
        }
    }
    return std::nullopt;
}

std::string nesting_message(const TextPosition& at, int max_depth) {
    return fmt::format("line {}, column {}: values nested more than {} levels deep (at most {} are allowed)", at.line,
                       at.column, max_depth, max_depth);
}

}  // namespace blksim::input
