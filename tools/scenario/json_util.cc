#include "tools/scenario/json_util.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

#include "tools/input/input_file.h"
#include "tools/input/nesting.h"
#include "tools/scenario/scenario.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

std::string squote(std::string_view s) { return "'" + std::string(s) + "'"; }

// JSON pointers (RFC 6901) name the offending value in every message.
std::string pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}
std::string child(const std::string& ptr, std::string_view key) { return ptr + "/" + pointer_token(key); }
std::string child(const std::string& ptr, size_t index) { return ptr + "/" + std::to_string(index); }

// A JSON value as a user would have typed it, shortened for messages.
std::string brief(const json& v) {
    std::string s = v.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}
std::string plural(size_t n, std::string_view word) {
    return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

std::string Reporter::describe(const std::string& ptr) const {
    const std::pair<std::string, std::string>* best = nullptr;
    for (const auto& o : origins_)
        if ((ptr == o.first || ptr.starts_with(o.first + "/")) && (!best || o.first.size() > best->first.size()))
            best = &o;
    return best ? best->second : ptr;
}

namespace {

// A --set as messages show it: one made by a script may be any length, and its start is
// enough to find it.
std::string shown_set(const std::string& set) { return set.size() > 100 ? set.substr(0, 80) + "..." : set; }

}  // namespace

void Reporter::fail(const std::string& ptr, const std::string& msg) const {
    std::string where = ptr.empty() ? "(top level)" : ptr;
    std::string text = file_ + ": " + where + ": " + msg;
    if (const std::string origin = describe(ptr); origin != ptr) text = origin + ": " + msg;
    // A --set that made an object on its way is noted for the object too: name it once.
    const std::string* last = nullptr;
    for (const auto& [set_ptr, set] : sets_)
        if ((ptr == set_ptr || ptr.starts_with(set_ptr + "/")) && (last == nullptr || *last != set)) {
            text += " (value from --set " + shown_set(set) + ")";
            last = &set;
        }
    throw ScenarioError(text);
}

void Reporter::fail_file(const std::string& msg) const { throw ScenarioError(file_ + ": " + msg); }

namespace {


// The DOM parser's events, with a check of each object's keys. (A callback passed to
// json::parse would do the same, but nlohmann's callback parser searches the parent's
// elements at the end of each object: quadratic in an array of 100,000 devices.)
class DuplicateKeyFinder {
public:
    struct Duplicate {
        std::string ptr;
    };
    using Dom = nlohmann::detail::json_sax_dom_parser<json>;

    explicit DuplicateKeyFinder(json& result) : dom_(result, /*allow_exceptions=*/true) {}

    bool null() { return value(), dom_.null(); }
    bool boolean(bool v) { return value(), dom_.boolean(v); }
    bool number_integer(json::number_integer_t v) { return value(), dom_.number_integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return value(), dom_.number_unsigned(v); }
    bool number_float(json::number_float_t v, const json::string_t& s) { return value(), dom_.number_float(v, s); }
    bool string(json::string_t& v) { return value(), dom_.string(v); }
    bool binary(json::binary_t& v) { return value(), dom_.binary(v); }
    bool start_object(size_t n) {
        value();
        stack_.push_back({false, 0, {}, {}});
        return dom_.start_object(n);
    }
    bool key(json::string_t& k) {
        Frame& top = stack_.back();
        top.key = k;
        if (!top.keys.insert(top.key).second) throw Duplicate{path()};
        return dom_.key(k);
    }
    bool end_object() {
        stack_.pop_back();
        return dom_.end_object();
    }
    bool start_array(size_t n) {
        value();
        stack_.push_back({true, 0, {}, {}});
        return dom_.start_array(n);
    }
    bool end_array() {
        stack_.pop_back();
        return dom_.end_array();
    }
    template <class Exception>
    bool parse_error(size_t pos, const std::string& token, const Exception& ex) {
        error_pos_ = pos;
        return dom_.parse_error(pos, token, ex);  // throws ex
    }
    // Bytes read when the parser gave up: where a number too large for a double ended
    // (nlohmann's out_of_range error names no position).
    size_t error_pos() const { return error_pos_; }

private:
    struct Frame {
        bool is_array;
        size_t next_index;
        std::string key;
        std::set<std::string> keys;
    };

    // A value starts: in an array, the next element.
    void value() {
        if (!stack_.empty() && stack_.back().is_array) ++stack_.back().next_index;
    }
    std::string path() const {
        std::string ptr;
        for (const Frame& f : stack_)
            ptr = f.is_array ? child(ptr, f.next_index - 1) : child(ptr, f.key);
        return ptr;
    }

    Dom dom_;
    std::vector<Frame> stack_;
    size_t error_pos_ = 0;
};

// e.what() without nlohmann's "[json.exception.parse_error.101] " prefix.
std::string json_error_text(const json::exception& e) {
    std::string msg = e.what();
    if (const size_t p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
    return msg;
}

}  // namespace

json parse_json(std::string_view text, const Reporter& rep) {
    if (const auto deep = input::json_nesting_exceeded(text)) rep.fail_file(input::nesting_message(*deep));
    json result;
    DuplicateKeyFinder finder(result);
    try {
        json::sax_parse(text.begin(), text.end(), &finder, json::input_format_t::json, /*strict=*/true,
                        /*ignore_comments=*/true);
        return result;
    } catch (const DuplicateKeyFinder::Duplicate& d) {
        rep.fail(d.ptr, "duplicate key (each key may appear only once in an object)");
    } catch (const json::parse_error& e) {
        rep.fail_file("invalid JSON: " + json_error_text(e));  // "parse error at line 3, column 5: ..."
    } catch (const json::out_of_range& e) {
        // A number beyond a double's range ("1e400": "number overflow parsing '1e400'").
        const std::string_view before = text.substr(0, std::min(finder.error_pos(), text.size()));
        const size_t nl = before.rfind('\n');
        const size_t column = before.size() - (nl == std::string_view::npos ? 0 : nl + 1);
        rep.fail_file("invalid JSON at line " + std::to_string(1 + std::count(before.begin(), before.end(), '\n')) +
                      ", column " + std::to_string(column) + ": " + json_error_text(e) +
                      " (numbers must lie within +-1.8e308)");
    }
}

std::string read_text_file(const fs::path& path, const Reporter& rep, std::string_view what) {
    std::string why;
    std::optional<std::string> text = input::read_file(path.string(), input::kMaxTextFile, why);
    if (!text) rep.fail_file("cannot read " + std::string(what) + ": " + why);
    return std::move(*text);
}

namespace {

bool is_index(const std::string& tok) {
    return !tok.empty() && std::all_of(tok.begin(), tok.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One --set being applied; its errors name it.
class SetOverride {
public:
    SetOverride(const std::string& set, Reporter& rep) : set_(set), rep_(rep) {}

    void apply(json& doc) {
        const size_t eq = set_.find('=');
        if (eq == std::string::npos || eq == 0) error("expected path=value, e.g. jobs.0.iodepth=16");
        const std::string path = set_.substr(0, eq);
        json value = parse_value(set_.substr(eq + 1));
        const std::vector<std::string> tokens = split(path);
        json* node = &doc;
        for (size_t i = 0; i < tokens.size(); ++i) {
            const std::string& tok = tokens[i];
            if (tok.empty()) error("empty component in path " + squote(path));
            if (node->is_object()) node = object_step(*node, tokens, i);
            else if (node->is_array()) node = array_step(*node, tok);
            else error(here() + " is " + std::string(node->type_name()) + ", not an object or array");
            dotted_ = dotted_.empty() ? tok : dotted_ + "." + tok;
        }
        *node = std::move(value);
        rep_.note_set(ptr_, set_);
    }

private:
    [[noreturn]] void error(const std::string& msg) const {
        throw ScenarioError(rep_.file() + ": --set " + squote(shown_set(set_)) + ": " + msg);
    }

    json parse_value(const std::string& text) const {
        if (const auto deep = input::json_nesting_exceeded(text)) error("the value: " + input::nesting_message(*deep));
        json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (value.is_discarded()) value = text;  // not JSON: a string such as 4k or 1s
        return value;
    }

    std::vector<std::string> split(const std::string& path) const {
        // No scenario value lies deeper than a file may nest.
        const size_t components = static_cast<size_t>(std::count(path.begin(), path.end(), '.')) + 1;
        if (components > static_cast<size_t>(input::kMaxNesting))
            error("the path has " + std::to_string(components) + " components; at most " +
                  std::to_string(input::kMaxNesting) + " are allowed");
        std::vector<std::string> tokens;
        for (size_t start = 0;;) {
            const size_t dot = path.find('.', start);
            tokens.push_back(path.substr(start, dot - start));
            if (dot == std::string::npos) break;
            start = dot + 1;
        }
        return tokens;
    }

    // The path walked so far, as messages name it.
    std::string here() const { return dotted_.empty() ? std::string("the document") : squote(dotted_); }

    json* object_step(json& node, const std::vector<std::string>& tokens, size_t i) {
        const std::string& tok = tokens[i];
        // A missing object on the way is made (devices.0.params.x on a device without
        // params); the schema then refuses a key that is not one, naming this --set. An
        // array is not: its elements are whole jobs or devices.
        const bool made = i + 1 != tokens.size() && !node.contains(tok);
        if (made && is_index(tokens[i + 1]) && dotted_.empty() && tok == "queues")
            return default_queues(node);
        if (made && is_index(tokens[i + 1]))
            error(squote(dotted_.empty() ? tok : dotted_ + "." + tok) +
                  " does not exist, and an array is not made by --set (give it whole: " + tok + "=[...])");
        json* next = &node[tok];
        ptr_ = child(ptr_, tok);
        if (made) {
            *next = json::object();
            rep_.note_set(ptr_, set_);
        }
        return next;
    }

    // queues.N.x on a scenario without queues: every device's queue entry as the loader
    // would make it, in device order, so that queues.N is device N's.
    json* default_queues(json& doc) {
        json queues = json::array();
        if (doc.contains("devices") && doc["devices"].is_array())
            for (const json& d : doc["devices"])
                if (d.is_object() && d.contains("name"))
                    queues.push_back(json{{"device", d["name"]}});
        doc["queues"] = std::move(queues);
        ptr_ = child(ptr_, "queues");
        rep_.note_set(ptr_, set_);
        return &doc["queues"];
    }

    json* array_step(json& node, const std::string& tok) {
        if (!is_index(tok)) error(squote(tok) + " is not an index, and " + here() + " is an array");
        size_t index = 0;
        const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), index);
        if (ec != std::errc() || end != tok.data() + tok.size() || index >= node.size())
            error("index " + tok + " is out of range: " + here() + " has " + plural(node.size(), "element"));
        ptr_ = child(ptr_, index);
        return &node[index];
    }

    const std::string& set_;
    Reporter& rep_;
    std::string ptr_, dotted_;  // the path walked so far, as a JSON pointer and dotted
};

}  // namespace

void apply_set(json& doc, const std::string& set, Reporter& rep) { SetOverride(set, rep).apply(doc); }

}  // namespace blksim::scenario
