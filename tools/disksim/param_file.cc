#include "tools/disksim/param_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "tools/input/input_file.h"
#include "tools/input/nesting.h"

namespace blksim::disksim {

namespace {

class Parser {
public:
    Parser(const std::string& text, std::string file) : s_(text), file_(std::move(file)) {}

    std::vector<ParamBlock> top() {
        std::vector<ParamBlock> out;
        for (;;) {
            skip();
            if (i_ >= s_.size())
                return out;
            const int line = line_;
            const std::string head = until("{");
            if (i_ >= s_.size() || s_[i_] != '{')
                fail(line, "expected 'TYPE NAME {' to open a block, found '" + excerpt(head) + "'");
            ++i_;
            ParamBlock b;
            b.line = line;
            b.file = file_;
            const auto sp = head.find_first_of(" \t");
            b.type = head.substr(0, sp);
            b.name = sp == std::string::npos ? "" : trim(head.substr(sp));
            body(b);
            out.push_back(std::move(b));
        }
    }

private:
    [[noreturn]] void fail(int line, const std::string& msg) const {
        throw DisksimError(fmt::format("{}:{}: {}", file_, line, msg));
    }
    static std::string trim(const std::string& x) {
        const auto a = x.find_first_not_of(" \t\r\n");
        if (a == std::string::npos)
            return "";
        const auto b = x.find_last_not_of(" \t\r\n");
        return x.substr(a, b - a + 1);
    }
    // Skips blanks, newlines and comments.
    void skip() {
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '\n') {
                ++line_;
                ++i_;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++i_;
            } else if (c == '#') {
                while (i_ < s_.size() && s_[i_] != '\n')
                    ++i_;
            } else {
                return;
            }
        }
    }
    // Text up to (not including) one of `stops`, a newline or a comment; trimmed.
    std::string until(const char* stops) {
        std::string out;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (std::strchr(stops, c) || c == '#')
                break;
            if (c == '\n') {
                // Block heads and keys never span lines, but a value's block may open on the
                // next line: keep going over blank space only.
                ++line_;
            }
            out += c;
            ++i_;
        }
        return trim(out);
    }
    void body(ParamBlock& b) {
        for (;;) {
            skip();
            while (i_ < s_.size() && s_[i_] == ',') {
                ++i_;
                skip();
            }
            if (i_ >= s_.size())
                fail(b.line, "block '" + excerpt(b.type) + "' is not closed with '}'");
            if (s_[i_] == '}') {
                ++i_;
                return;
            }
            const int line = line_;
            const std::string key = until("=,{}[]");
            if (i_ >= s_.size() || s_[i_] != '=')
                fail(line, "expected 'Key = value' in block '" + excerpt(b.type) + "', found '" + excerpt(key) + "'");
            ++i_;
            if (key.empty())
                fail(line, "an entry without a key (nothing before '=')");
            b.entries.emplace_back(key, value());
        }
    }
    // A list or block value: one level deeper, within the limit (value() and body() recurse).
    struct Nested {
        Parser& p;
        Nested(Parser& parser, int line) : p(parser) {
            if (++p.depth_ > input::kMaxNesting)
                p.fail(line, fmt::format("lists and blocks nested more than {} levels deep (at most {} are allowed)",
                                         input::kMaxNesting, input::kMaxNesting));
        }
        ~Nested() { --p.depth_; }
    };
    ParamValue value() {
        skip();
        ParamValue v;
        v.line = line_;
        if (i_ >= s_.size())
            fail(line_, "a value is missing at the end of the file");
        if (s_[i_] == '[') {
            const Nested level(*this, line_);
            ++i_;
            v.kind = ParamValue::Kind::LIST;
            for (;;) {
                skip();
                while (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    skip();
                }
                if (i_ >= s_.size())
                    fail(v.line, "list is not closed with ']'");
                if (s_[i_] == ']') {
                    ++i_;
                    return v;
                }
                v.list.push_back(value());
            }
        }
        std::string w;
        while (i_ < s_.size() && !std::strchr(",{}[]#\n", s_[i_]))
            w += s_[i_++];
        w = trim(w);
        const size_t save_i = i_;
        const int save_line = line_;
        skip();
        if (i_ < s_.size() && s_[i_] == '{') {
            const Nested level(*this, line_);
            ++i_;
            v.kind = ParamValue::Kind::BLOCK;
            v.block = std::make_shared<ParamBlock>();
            v.block->type = w;
            v.block->file = file_;
            v.block->line = v.line;
            body(*v.block);
            return v;
        }
        i_ = save_i;
        line_ = save_line;
        if (w.empty())
            fail(v.line, "a value is missing");
        v.text = w;
        return v;
    }

    const std::string& s_;
    std::string file_;
    size_t i_ = 0;
    int line_ = 1;
    int depth_ = 0;  // lists and blocks open around the current value
};

const char* kind_name(ParamValue::Kind k) {
    switch (k) {
        case ParamValue::Kind::WORD: return "a value";
        case ParamValue::Kind::BLOCK: return "a block";
        case ParamValue::Kind::LIST: return "a list";
    }
    return "?";
}

}  // namespace

std::vector<ParamBlock> parse_param_text(const std::string& text, const std::string& file) {
    return Parser(text, file).top();
}

std::vector<ParamBlock> parse_param_file(const std::string& path) {
    std::string why;
    const std::optional<std::string> text = input::read_file(path, input::kMaxTextFile, why);
    if (!text)
        throw DisksimError(fmt::format("{}: cannot open: {}", path, why));
    return parse_param_text(*text, path);
}

std::string excerpt(std::string_view text) {
    constexpr size_t kMax = 80;
    const size_t a = text.find_first_not_of(" \t\r\n");
    if (a == std::string_view::npos)
        return "";
    text.remove_prefix(a);
    const size_t nl = text.find_first_of("\r\n");
    std::string out(text.substr(0, std::min(nl, kMax)));
    if (out.size() < text.size())
        out += "...";
    return out;
}

double param_number(const ParamValue& v, const std::string& file, const std::string& what) {
    if (v.kind != ParamValue::Kind::WORD)
        throw DisksimError(fmt::format("{}:{}: {}: expected a number, found {}", file, v.line, what, kind_name(v.kind)));
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(v.text.c_str(), &end);
    if (end == v.text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(d))
        throw DisksimError(fmt::format("{}:{}: {}: expected a number, found '{}'", file, v.line, what, excerpt(v.text)));
    return d;
}

const ParamValue* ParamBlock::find(const std::string& key) const {
    for (const auto& [k, v] : entries)
        if (k == key)
            return &v;
    return nullptr;
}

const ParamValue& ParamBlock::get(const std::string& key) const {
    const ParamValue* v = find(key);
    if (!v)
        throw DisksimError(fmt::format("{}:{}: block '{}' has no '{}' entry", file, line,
                                       excerpt(name.empty() ? type : type + " " + name), key));
    return *v;
}

double ParamBlock::num(const std::string& key, double lo, double hi) const {
    const ParamValue& v = get(key);
    const double d = param_number(v, file, "'" + key + "'");
    if (d < lo || d > hi)
        throw DisksimError(fmt::format("{}:{}: '{}' = {}: allowed {} .. {}", file, v.line, excerpt(key), excerpt(v.text), lo, hi));
    return d;
}

double ParamBlock::num_or(const std::string& key, double dflt, double lo, double hi) const {
    return find(key) ? num(key, lo, hi) : dflt;
}

std::string ParamBlock::word(const std::string& key) const {
    const ParamValue& v = get(key);
    if (v.kind != ParamValue::Kind::WORD)
        throw DisksimError(fmt::format("{}:{}: '{}': expected a value, found {}", file, v.line, key, kind_name(v.kind)));
    return v.text;
}

}  // namespace blksim::disksim
