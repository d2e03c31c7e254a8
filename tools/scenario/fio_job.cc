#include "tools/scenario/fio_job.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "tools/input/input_file.h"

namespace blksim::fio {

namespace {

namespace fs = std::filesystem;

constexpr OptionInfo kVocabulary[] = {
#include "tools/scenario/fio_vocabulary.inc"
};

std::string squote(std::string_view s) { return "'" + std::string(s) + "'"; }

bool is_blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
    return s;
}

// A text shortened for messages.
std::string brief(std::string_view s) {
    return s.size() > 60 ? std::string(s.substr(0, 57)) + "..." : std::string(s);
}

bool valid_option_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
}

// ---------------------------------------------------------------------------------------
// bc's integer arithmetic, for values such as "8*$mb_memory": + - * / % ^, parentheses,
// unary minus; int64 with overflow checks.

class Calculator {
public:
    explicit Calculator(std::string_view text) : s_(text) {}

    int64_t run() {
        const int64_t v = expr();
        skip();
        if (i_ != s_.size()) fail("unexpected " + squote(s_.substr(i_, 1)));
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw ParseError("cannot compute " + squote(s_) + ": " + why +
                         " (fio computes values that hold a $keyword and + - * / with bc: integers only)");
    }
    void skip() {
        while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
    }
    bool eat(char c) {
        skip();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    int64_t checked(__int128 v) const {
        if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) fail("overflow");
        return static_cast<int64_t>(v);
    }
    int64_t expr() {
        int64_t v = term();
        while (true) {
            if (eat('+')) v = checked(static_cast<__int128>(v) + term());
            else if (eat('-')) v = checked(static_cast<__int128>(v) - term());
            else return v;
        }
    }
    int64_t term() {
        int64_t v = power();
        while (true) {
            if (eat('*')) {
                v = checked(static_cast<__int128>(v) * power());
            } else if (skip(), i_ < s_.size() && (s_[i_] == '/' || s_[i_] == '%')) {
                const bool div = s_[i_++] == '/';
                const int64_t d = power();
                if (d == 0) fail("division by zero");
                v = checked(div ? static_cast<__int128>(v) / d : static_cast<__int128>(v) % d);
            } else {
                return v;
            }
        }
    }
    int64_t power() {
        const int64_t base = unary();
        if (!eat('^')) return base;
        const int64_t exp = power();  // right-associative, as in bc
        if (exp < 0) fail("negative exponent");
        if (base == 0 || base == 1) return exp == 0 ? 1 : base;
        if (base == -1) return exp % 2 ? -1 : 1;
        __int128 r = 1;
        for (int64_t k = 0; k < exp; ++k) r = checked(r * base);  // |base| >= 2: overflows within 64 steps
        return static_cast<int64_t>(r);
    }
    int64_t unary() {
        if (eat('-')) return checked(-static_cast<__int128>(unary()));
        if (eat('+')) return unary();
        return primary();
    }
    int64_t primary() {
        if (eat('(')) {
            const int64_t v = expr();
            if (!eat(')')) fail("missing ')'");
            return v;
        }
        skip();
        const size_t start = i_;
        __int128 v = 0;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
            v = v * 10 + (s_[i_] - '0');
            checked(v);
            ++i_;
        }
        if (i_ == start) fail(i_ < s_.size() ? "unexpected " + squote(s_.substr(i_, 1)) : "missing a number at the end");
        return checked(v);
    }

    std::string_view s_;
    size_t i_ = 0;
};

// ---------------------------------------------------------------------------------------
// fio's own command-line options (init.c's l_opts), which are not job options.

enum class CliKind { OUTPUT_FORMAT, OUTPUT, SECTION, PARSE_ONLY, MINIMAL, IGNORED, UNSUPPORTED };
struct CliOption {
    std::string_view name;
    CliKind kind;
    bool needs_value;
};
constexpr CliOption kCliOptions[] = {
    {"output-format", CliKind::OUTPUT_FORMAT, true},
    {"output", CliKind::OUTPUT, true},
    {"section", CliKind::SECTION, true},
    {"parse-only", CliKind::PARSE_ONLY, false},
    {"minimal", CliKind::MINIMAL, false},
    {"append-terse", CliKind::MINIMAL, false},
    // progress, limits and debugging of the fio process: nothing to simulate
    {"eta", CliKind::IGNORED, true},
    {"eta-newline", CliKind::IGNORED, true},
    {"eta-interval", CliKind::IGNORED, true},
    {"status-interval", CliKind::IGNORED, true},
    {"readonly", CliKind::IGNORED, false},
    {"warnings-fatal", CliKind::IGNORED, false},
    {"max-jobs", CliKind::IGNORED, true},
    {"alloc-size", CliKind::IGNORED, true},
    {"debug", CliKind::IGNORED, true},
    {"aux-path", CliKind::IGNORED, true},
    {"terse-version", CliKind::IGNORED, true},
    // other fio modes (client/server, help, tests, triggers, logs)
    {"client", CliKind::UNSUPPORTED, true},
    {"server", CliKind::UNSUPPORTED, false},
    {"daemonize", CliKind::UNSUPPORTED, true},
    {"remote-config", CliKind::UNSUPPORTED, true},
    {"showcmd", CliKind::UNSUPPORTED, false},
    {"version", CliKind::UNSUPPORTED, false},
    {"help", CliKind::UNSUPPORTED, false},
    {"cmdhelp", CliKind::UNSUPPORTED, false},
    {"enghelp", CliKind::UNSUPPORTED, false},
    {"crctest", CliKind::UNSUPPORTED, false},
    {"cpuclock-test", CliKind::UNSUPPORTED, false},
    {"idle-prof", CliKind::UNSUPPORTED, true},
    {"inflate-log", CliKind::UNSUPPORTED, true},
    {"trigger-file", CliKind::UNSUPPORTED, true},
    {"trigger-timeout", CliKind::UNSUPPORTED, true},
    {"trigger", CliKind::UNSUPPORTED, true},
    {"trigger-remote", CliKind::UNSUPPORTED, true},
    {"merge-blktrace-only", CliKind::UNSUPPORTED, false},
    {"bandwidth-log", CliKind::UNSUPPORTED, false},
    {"latency-log", CliKind::UNSUPPORTED, false},
};

const CliOption* find_cli_option(std::string_view name) {
    for (const CliOption& o : kCliOptions)
        if (o.name == name) return &o;
    return nullptr;
}

// ---------------------------------------------------------------------------------------

class Parser {
public:
    explicit Parser(const Environment& env) : env_(env) {}

    // --- job files ---

    void file(const std::string& path, bool stonewall_first_job) {
        const std::string text = read(path, nullptr);
        stonewall_next_ = stonewall_first_job;
        lines(text, path, fs::path(path).parent_path(), /*nested=*/false);
        close_section();
    }

    void text(std::string_view text, const std::string& name) {
        check_size(text.size(), name, nullptr);
        lines(text, name, fs::path(name).parent_path(), false);
        close_section();
    }

    // --- command lines ---

    void command_line(const std::vector<std::string>& args) {
        std::vector<std::pair<std::string, Location>> job_files;
        bool options_done = false;
        for (size_t i = 0; i < args.size(); ++i) {
            const std::string& arg = args[i];
            const Location at{"", 0, static_cast<uint32_t>(i + 1)};
            if (options_done || arg.size() < 2 || arg[0] != '-') {
                job_files.emplace_back(arg, at);
                continue;
            }
            if (arg == "--") {
                options_done = true;  // getopt: what follows are job files
                continue;
            }
            i = command_line_option(args, i, at);
        }
        close_section();
        command_line_job_files(job_files);
        if (jobs_.empty() && job_files.empty() && !global_.empty()) {
            // The mailing-list form: options only. One job of them all.
            Job j{"job", global_.front().where, global_};
            jobs_.push_back(std::move(j));
            implicit_job_ = true;
        }
    }

    // The option argument args[i] (at): fio's own options, --name, or a job option. Returns
    // the index of the last argument it used (its value may be the next one).
    size_t command_line_option(const std::vector<std::string>& args, size_t i, const Location& at) {
        const std::string& arg = args[i];
        const std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
        const size_t eq = body.find('=');
        const std::string name = body.substr(0, eq);
        std::optional<std::string> value;
        if (eq != std::string::npos) value = body.substr(eq + 1);
        std::string raw = arg;
        if (!valid_option_name(name))
            fail(at, squote(arg) + ": expected --option=value (or -option=value)");

        // The value may be the next argument, as getopt allows for options that need one.
        const auto take_value = [&](bool needs) {
            if (value || !needs) return;
            if (i + 1 >= args.size())
                fail(at, squote(arg) + ": option '" + name + "' needs a value (" + name + "=...)");
            value = args[++i];
            raw += " " + *value;
        };

        if (const CliOption* c = find_cli_option(name)) {
            take_value(c->needs_value);
            Option o{name, value, raw, at};
            switch (c->kind) {
                case CliKind::OUTPUT_FORMAT: settings_.output_format = o; break;
                case CliKind::MINIMAL: o.value = "terse"; settings_.output_format = o; break;
                case CliKind::OUTPUT: settings_.output = o; break;
                case CliKind::SECTION: sections_.push_back(*value); break;
                case CliKind::PARSE_ONLY: settings_.parse_only = true; break;
                case CliKind::IGNORED: settings_.ignored.push_back(o); break;
                case CliKind::UNSUPPORTED: settings_.unsupported.push_back(o); break;
            }
            return i;
        }
        if (name == "name") {
            take_value(true);
            close_section();
            open_section(*value, at);
            return i;
        }
        const OptionInfo* info = find_option(name);
        take_value(info && info->needs_value);
        if (!in_global_ && !job_) open_section("global", at);  // before the first --name
        add(Option{name, value ? std::optional(substitute_at(*value, at)) : std::nullopt, raw, at});
        job_options_ = true;
        return i;
    }

    // The job files named on the command line, in order.
    void command_line_job_files(const std::vector<std::pair<std::string, Location>>& job_files) {
        for (size_t k = 0; k < job_files.size(); ++k) {
            const auto& [path, at] = job_files[k];
            if (path == "-") fail(at, "reading a job file from standard input is not supported; name the file");
            std::error_code ec;
            if (!fs::exists(fs::symlink_status(path, ec)))
                fail(at, squote(path) + ": no such job file (arguments that are not options are job files, as in fio)");
            const std::string text = read(path, &at);
            stonewall_next_ = k > 0;  // fio: "Separate multiple job files by a stonewall"
            lines(text, path, fs::path(path).parent_path(), false);
            close_section();
            files_.push_back(path);
        }
    }

    Input finish(const std::string& what) {
        if (!sections_.empty()) {
            std::vector<Job> kept;
            for (Job& j : jobs_)
                if (std::find(sections_.begin(), sections_.end(), j.name) != sections_.end()) kept.push_back(std::move(j));
            if (kept.empty()) {
                std::string names;
                for (const auto& s : sections_) names += (names.empty() ? "" : ", ") + s;
                throw ParseError(what + ": no job matches --section " + names);
            }
            jobs_ = std::move(kept);
        }
        if (jobs_.empty())
            throw ParseError(what + ": no jobs defined (a job starts with [name] in a job file or --name=name on "
                                    "the command line; [global] and options before the first --name only set defaults)");
        Input in;
        in.source = what;
        in.jobs = std::move(jobs_);
        in.settings = std::move(settings_);
        in.implicit_job = implicit_job_;
        return in;
    }

    // How messages name a command line: its job file when that is all it has.
    std::string source() const {
        if (job_options_ || files_.empty()) return "fio command line";
        std::string names;
        for (const std::string& f : files_) names += (names.empty() ? "" : ", ") + f;
        return names;
    }

private:
    [[noreturn]] static void fail(const Location& at, const std::string& msg) {
        throw ParseError(at.str() + ": " + msg);
    }

    static void check_size(uintmax_t size, const std::string& name, const Location* at) {
        if (size > kMaxFileBytes) {
            const std::string msg = squote(name) + " is " + std::to_string(size) + " bytes; job files of more than " +
                                    std::to_string(kMaxFileBytes >> 20) + " MiB are refused";
            if (at) fail(*at, msg);
            throw ParseError(msg);
        }
    }

    // A job file's text; at: where it was named (an argument, an include line), for messages.
    std::string read(const std::string& path, const Location* at) const {
        const auto error = [&](const std::string& msg) {
            if (at) fail(*at, msg);
            throw ParseError(msg);
        };
        std::string why;
        std::optional<std::string> text = input::read_file(path, kMaxFileBytes, why);
        if (!text) error("cannot read job file " + squote(path) + ": " + why);
        return std::move(*text);
    }

    // The lines of a job file (nested: an included file, which may hold options only).
    void lines(std::string_view text, const std::string& name, const fs::path& dir, bool nested) {
        uint32_t line_no = 0;
        size_t pos = 0;
        while (pos < text.size()) {
            ++line_no;
            size_t end = text.find('\n', pos);
            if (end == std::string_view::npos) end = text.size();
            std::string_view line = text.substr(pos, end - pos);
            pos = end + 1;
            const Location at{name, line_no, 0};
            if (line.size() > kMaxLineBytes)
                fail(at, "line is " + std::to_string(line.size()) + " bytes long; at most " +
                             std::to_string(kMaxLineBytes) + " are allowed (fio's OPT_LEN_MAX)");
            if (line.find('\0') != std::string_view::npos) fail(at, "binary data (a NUL byte): not a job file");
            // fio's strip_blank_end(): a comment starts at the first ';' or '#', anywhere.
            line = trim(line.substr(0, line.find_first_of(";#")));
            if (line.empty()) continue;

            if (line.front() == '[') {
                if (nested) fail(at, squote(line) + ": an included file may not start sections (fio: \"No new sections in included files\")");
                if (line.back() != ']' || line.size() < 2)
                    fail(at, squote(brief(line)) + ": a section header is [name], with the ']' at the end of the line");
                const std::string_view sect = trim(line.substr(1, line.size() - 2));
                if (sect.empty()) fail(at, "empty section name '[]'");
                if (sect.find_first_of("[]") != std::string_view::npos)
                    fail(at, squote(brief(line)) + ": a section name may not contain '[' or ']'");
                close_section();
                open_section(std::string(sect), at);
                continue;
            }
            if (!in_global_ && !job_)
                fail(at, squote(brief(line)) + ": option outside of a [section] (a job file starts with [global] or [jobname])");

            if (line.starts_with("include") && (line.size() == 7 || is_blank(line[7]))) {
                include(trim(line.substr(7)), at, dir);
                continue;
            }

            const size_t eq = line.find('=');
            const std::string_view opt = trim(line.substr(0, eq));
            if (opt.empty()) fail(at, squote(brief(line)) + ": option name missing before '='");
            if (!valid_option_name(opt))
                fail(at, squote(brief(line)) + ": expected option=value (an option name has no blanks: " +
                             "letters, digits, '_' and '-')");
            std::optional<std::string> value;
            if (eq != std::string_view::npos) value = substitute_at(std::string(trim(line.substr(eq + 1))), at);
            add(Option{std::string(opt), std::move(value), std::string(line), at});
        }
    }

    void include(std::string_view file, const Location& at, const fs::path& dir) {
        if (file.empty()) fail(at, "include needs a file name (include FILE)");
        // fio: the name as given if it exists, else relative to the including file.
        fs::path path(file);
        std::error_code ec;
        // (symlink_status: a link that loops is there, and read() says what it is.)
        if (path.is_relative() && !fs::exists(fs::symlink_status(path, ec)) && !dir.empty()) path = dir / path;
        if (!fs::exists(fs::symlink_status(path, ec)))
            fail(at, "include " + squote(file) + ": no such file (looked in the working directory" +
                         (dir.empty() ? std::string() : " and in " + dir.string()) + ")");
        const fs::path canon = fs::weakly_canonical(path, ec);
        if (std::find(include_stack_.begin(), include_stack_.end(), canon) != include_stack_.end())
            fail(at, "include " + squote(file) + ": include cycle (the file is already being read)");
        if (static_cast<int>(include_stack_.size()) >= kMaxIncludeDepth)
            fail(at, "include " + squote(file) + ": includes nested more than " + std::to_string(kMaxIncludeDepth) + " deep");
        const std::string text = read(path.string(), &at);
        include_stack_.push_back(canon);
        lines(text, path.string(), path.parent_path(), /*nested=*/true);
        include_stack_.pop_back();
    }

    std::string substitute_at(const std::string& value, const Location& at) const {
        try {
            return substitute(value, env_);
        } catch (const ParseError& e) {
            fail(at, e.what());
        }
    }

    void open_section(const std::string& name, const Location& at) {
        // fio: any section whose name starts with "global" is a global one.
        if (name.starts_with("global")) {
            in_global_ = true;
            return;
        }
        Job j{name, at, global_};
        if (stonewall_next_) {
            j.options.push_back(Option{"stonewall", "1", "(a later job file starts with a stonewall, as in fio)", at});
            stonewall_next_ = false;
        }
        jobs_.push_back(std::move(j));
        job_ = true;
    }

    void close_section() {
        in_global_ = false;
        job_ = false;
    }

    void add(Option o) {
        if (in_global_) global_.push_back(std::move(o));
        else jobs_.back().options.push_back(std::move(o));
    }

    const Environment& env_;
    std::vector<Option> global_;     // the defaults so far: [global] sections, options before --name
    std::vector<Job> jobs_;
    bool in_global_ = false;         // the current section is a global one
    bool job_ = false;               // the current section is jobs_.back()
    bool stonewall_next_ = false;
    bool implicit_job_ = false;
    bool job_options_ = false;           // the command line has job options (not only job files)
    std::vector<std::string> files_;     // the job files of a command line
    std::vector<fs::path> include_stack_;
    std::vector<std::string> sections_;  // --section filters
    Settings settings_;
};

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

std::string Location::str() const {
    if (file.empty()) return "fio argument " + std::to_string(arg);
    return file + ":" + std::to_string(line);
}

std::string substitute(const std::string& value, const Environment& env) {
    // ${VAR} first (fio_option_dup_subs), then the keywords (fio_keyword_replace).
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '$' && i + 1 < value.size() && value[i + 1] == '{') {
            const size_t close = value.find('}', i + 2);
            if (close == std::string::npos) throw ParseError("unterminated ${ in " + squote(value) + " (write ${NAME})");
            const std::string var = value.substr(i + 2, close - i - 2);
            if (var.empty()) throw ParseError("'${}' in " + squote(value) + " names no environment variable");
            std::optional<std::string> v;
            if (env.getenv) {
                v = env.getenv(var);
            } else if (const char* e = std::getenv(var.c_str())) {
                v = std::string(e);
            }
            if (v) out += *v;  // fio: an unset variable is the empty string
            i = close;
            continue;
        }
        out += value[i];
    }
    bool replaced = false;
    const std::pair<std::string_view, uint64_t> keywords[] = {
        {"$pagesize", env.pagesize}, {"$mb_memory", env.mb_memory}, {"$ncpus", env.ncpus}};
    for (const auto& [word, v] : keywords) {
        for (size_t p; (p = out.find(word)) != std::string::npos;) {
            out.replace(p, word.size(), std::to_string(v));
            replaced = true;
        }
    }
    if (replaced && out.find_first_of("+-*/") != std::string::npos) return std::to_string(Calculator(out).run());
    return out;
}

bool OptionInfo::of_engine(std::string_view engine) const {
    std::string_view list = engines;
    while (!list.empty()) {
        const size_t comma = list.find(',');
        if (list.substr(0, comma) == engine) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

const OptionInfo* find_option(std::string_view name) {
    for (const OptionInfo& o : kVocabulary)
        if (o.name == name) return &o;
    return nullptr;
}

std::string closest_option(std::string_view name) {
    std::string_view best;
    size_t best_d = std::numeric_limits<size_t>::max();
    for (const OptionInfo& o : kVocabulary) {
        const size_t d = edit_distance(name, o.name);
        if (d < best_d) {
            best_d = d;
            best = o.name;
        }
    }
    // Close enough to be a typo: at most a third of the name, and at most 3 edits.
    return best_d <= std::min<size_t>(3, std::max<size_t>(1, name.size() / 3)) ? std::string(best) : std::string();
}

Input parse_job_file(const std::string& path, const Environment& env) {
    Parser p(env);
    p.file(path, false);
    return p.finish(path);
}

Input parse_job_text(std::string_view text, const std::string& name, const Environment& env) {
    Parser p(env);
    p.text(text, name);
    return p.finish(name);
}

Input parse_command_line(const std::vector<std::string>& args, const Environment& env) {
    Parser p(env);
    p.command_line(args);
    return p.finish(p.source());
}

}  // namespace blksim::fio
