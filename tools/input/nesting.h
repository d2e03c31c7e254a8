// How deep a file's values may nest. The parsers are iterative, but what walks a parsed value
// (the schema validator, the UTF-8 check, JSON output, the DiskSim parser's own recursion)
// recurses once per level: 50,000 levels overflow the stack. Real files nest a handful of
// levels (a scenario: jobs -> job -> option -> list); 64 leaves room for anything hand-written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blksim::input {

inline constexpr int kMaxNesting = 64;

struct TextPosition {
    uint64_t line = 1, column = 1;  // from 1
};

// Where JSON text (with // and /* */ comments, as the scenario reader allows) first opens a
// '[' or '{' more than max_depth levels deep, or nullopt if it never does. Strings are
// skipped; the text need not be valid JSON (the parser reports that).
std::optional<TextPosition> json_nesting_exceeded(std::string_view text, int max_depth = kMaxNesting);

// "line 3, column 17: values nested more than 64 levels deep (at most 64 are allowed)".
std::string nesting_message(const TextPosition& at, int max_depth = kMaxNesting);

}  // namespace blksim::input
