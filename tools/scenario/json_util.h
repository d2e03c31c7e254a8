// What every part of the scenario loader shares: JSON pointers and short renderings of
// values for messages, the Reporter that makes every message name its file and JSON path,
// reading and parsing JSON text, and --set overrides.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace blksim::scenario {

using json = nlohmann::json;

template <class Range>
std::string join(const Range& items, std::string_view sep = ", ") {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += sep;
        out += item;
    }
    return out;
}

std::string squote(std::string_view s);

// JSON pointers (RFC 6901) name the offending value in every message.
std::string pointer_token(std::string_view key);
std::string child(const std::string& ptr, std::string_view key);
std::string child(const std::string& ptr, size_t index);

// A JSON value as a user would have typed it, shortened for messages.
std::string brief(const json& v);

// "1 element", "3 elements".
std::string plural(size_t n, std::string_view word);

// Error reporting: every message is "<file>: <json path>: <what is wrong>".
class Reporter {
public:
    explicit Reporter(std::string file) : file_(std::move(file)) {}

    const std::string& file() const { return file_; }

    // Remembers that the value at ptr came from a --set, so that errors about it say so.
    void note_set(const std::string& ptr, const std::string& set) { sets_.emplace_back(ptr, set); }

    // Remembers that the value at ptr (and below it) was written in a fio job file or command
    // line: errors about it name that place ("job.fio:12: bs=1000") instead of file + JSON path.
    void note_origin(const std::string& ptr, const std::string& where) { origins_.emplace_back(ptr, where); }

    // How messages name the value at ptr: its fio origin if it has one, else the JSON path.
    std::string describe(const std::string& ptr) const;

    [[noreturn]] void fail(const std::string& ptr, const std::string& msg) const;
    [[noreturn]] void fail_file(const std::string& msg) const;

private:
    std::string file_;
    std::vector<std::pair<std::string, std::string>> sets_;
    std::vector<std::pair<std::string, std::string>> origins_;  // JSON pointer -> "job.fio:12: bs=1000"
};

// Reading JSON. Comments are allowed (scenarios are hand-written and deserve them);
// duplicate keys are refused, because JSON parsers silently keep the last one and a
// repeated "iodepth" is a classic way to run a different test than the one intended.
json parse_json(std::string_view text, const Reporter& rep);

// The text of a file, refused (naming `what`) when it cannot be read or is too large.
std::string read_text_file(const std::filesystem::path& path, const Reporter& rep, std::string_view what);

// --set overrides: "jobs.0.iodepth=16". Applied to the JSON before validation, so that a
// bad value is reported exactly like one written in the file.
void apply_set(json& doc, const std::string& set, Reporter& rep);

}  // namespace blksim::scenario
