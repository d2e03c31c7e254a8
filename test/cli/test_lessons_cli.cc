// The course (scenarios/teaching/lessons/*.md, indexed by scenarios/teaching/README.md): every
// lesson is run as its text says, and every figure the text quotes is checked against what
// the simulator prints. A quoted figure carries a marker right after it,
//     16.3<!--= wb jobs/jobname=randwrite/write/iops /1000 --> k IOPS
// naming one of the lesson's runs (declared as `<!-- run ID: ARGS -->`, ARGS being what follows
// `build/blksim` in the lesson's commands) and where the figure comes from:
//   - a path into the run's `--output-format json` report: keys and array indexes split by
//     `/`, `key=value` picks the first array element whose key has that value; an optional
//     ` /N` or ` *N` scales the simulator's value to the unit the text uses;
//   - `trace:REGEX`: how many lines of the run's explained trace (`--explain --trace FILE`)
//     match REGEX.
// The figure must equal the simulator's value rounded as the text rounds it (within half a
// unit of its last digit), so a figure edited in the text without the simulator agreeing,
// or a simulator change that moves one, fails here.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Figure {
    std::string quoted;  // as the text prints it
    std::string run;
    std::string source;  // JSON path or trace:REGEX, with its scale
    std::size_t line;
};

struct Lesson {
    std::string file;
    std::string text;
    std::map<std::string, std::string> runs;  // id → blksim arguments
    std::vector<Figure> figures;
};

std::size_t line_of(const std::string& text, std::size_t pos) {
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\n");
    const auto e = s.find_last_not_of(" \t\n");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Lesson parse_lesson(const fs::path& path) {
    Lesson l{path.filename().string(), clitest::slurp(path), {}, {}};
    static const std::regex run_re(R"(<!-- run ([A-Za-z0-9_-]+): (.*?) -->)");
    for (std::sregex_iterator it(l.text.begin(), l.text.end(), run_re), end; it != end; ++it) {
        INFO(l.file << ":" << line_of(l.text, static_cast<std::size_t>(it->position())));
        CHECK(l.runs.emplace((*it)[1].str(), (*it)[2].str()).second);  // each id once
    }
    static const std::regex fig_re(R"(([0-9]+(?:\.[0-9]+)?)<!--= ([A-Za-z0-9_-]+) (.*?) -->)");
    for (std::sregex_iterator it(l.text.begin(), l.text.end(), fig_re), end; it != end; ++it)
        l.figures.push_back({(*it)[1].str(), (*it)[2].str(), trim((*it)[3].str()),
                             line_of(l.text, static_cast<std::size_t>(it->position()))});
    // A marker the pattern above did not take (no number right before it, a typo) would
    // leave a figure unchecked.
    std::size_t markers = 0;
    for (std::size_t p = l.text.find("<!--="); p != std::string::npos; p = l.text.find("<!--=", p + 1))
        ++markers;
    INFO(l.file);
    CHECK(markers == l.figures.size());
    return l;
}

std::vector<fs::path> lesson_files() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(clitest::source_path("scenarios/teaching/lessons")))
        if (e.path().extension() == ".md")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

// The run's outputs, made once per lesson and run: its JSON report, its explained trace.
struct Outputs {
    json report;
    std::string trace;
};

json run_json(const std::string& args) {
    const auto r = clitest::shell("cd " + clitest::source_path("") + " && " + BLKSIM_BINARY + " " + args +
                                  " --output-format json 2>/dev/null");
    INFO(args);
    REQUIRE(r.status == 0);
    json j = json::parse(r.out, nullptr, false);
    REQUIRE(!j.is_discarded());
    return j;
}

std::string run_trace(const std::string& args) {
    const clitest::TempDir tmp("lesson-trace");
    const auto r = clitest::shell("cd " + clitest::source_path("") + " && " + BLKSIM_BINARY + " " + args +
                                  " -q --explain --trace " + tmp / "trace.txt" + " >/dev/null 2>&1");
    INFO(args);
    REQUIRE(r.status == 0);
    return clitest::slurp(tmp / "trace.txt");
}

// The JSON value at a path (`a/b=c/0/d`); null when it is not there.
json at_path(const json& root, const std::string& path) {
    const json* j = &root;
    std::size_t b = 0;
    while (b <= path.size()) {
        const std::size_t e = std::min(path.find('/', b), path.size());
        const std::string seg = path.substr(b, e - b);
        b = e + 1;
        if (const auto eq = seg.find('='); eq != std::string::npos && j->is_array()) {
            const std::string key = seg.substr(0, eq), want = seg.substr(eq + 1);
            const json* found = nullptr;
            for (const json& el : *j)
                if (el.is_object() && el.contains(key) &&
                    (el[key].is_string() ? el[key].get<std::string>() : el[key].dump()) == want) {
                    found = &el;  // the first
                    break;
                }
            if (!found)
                return nullptr;
            j = found;
        } else if (j->is_array() && !seg.empty() && std::all_of(seg.begin(), seg.end(), ::isdigit)) {
            const std::size_t i = std::stoul(seg);
            if (i >= j->size())
                return nullptr;
            j = &(*j)[i];
        } else if (j->is_object() && j->contains(seg)) {
            j = &(*j)[seg];
        } else {
            return nullptr;
        }
    }
    return *j;
}

// The simulator's value for a figure's source.
double simulated(const std::string& source, const Outputs& out) {
    if (source.rfind("trace:", 0) == 0) {
        const std::regex re(source.substr(6));
        std::size_t n = 0, b = 0;
        while (b < out.trace.size()) {
            const std::size_t e = std::min(out.trace.find('\n', b), out.trace.size());
            if (std::regex_search(out.trace.begin() + static_cast<long>(b), out.trace.begin() + static_cast<long>(e), re))
                ++n;
            b = e + 1;
        }
        return static_cast<double>(n);
    }
    std::string path = source;
    double scale = 1;
    if (const auto sp = source.find(' '); sp != std::string::npos) {
        path = source.substr(0, sp);
        const std::string s = trim(source.substr(sp));
        REQUIRE(s.size() > 1);
        REQUIRE((s[0] == '/' || s[0] == '*'));
        const double n = std::stod(s.substr(1));
        scale = s[0] == '/' ? 1 / n : n;
    }
    const json v = at_path(out.report, path);
    INFO("JSON path " << path);
    REQUIRE(v.is_number());
    return v.get<double>() * scale;
}

// Half a unit of the quoted figure's last digit: "16.3" stands for 16.25 .. 16.35.
double rounding_of(const std::string& quoted) {
    const auto dot = quoted.find('.');
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(quoted.size() - dot - 1);
    return 0.5 * std::pow(10.0, -decimals);
}

}  // namespace

TEST_CASE("lessons: every lesson runs as its text says and every figure it quotes is what blksim prints",
          "[cli][teaching][lessons]") {
    const std::vector<fs::path> files = lesson_files();
    REQUIRE(files.size() >= 13);
    const std::string index = clitest::slurp(clitest::source_path("scenarios/teaching/README.md"));
    std::size_t checked = 0;
    for (const fs::path& f : files) {
        const Lesson l = parse_lesson(f);
        INFO(l.file);
        CHECK(index.find("lessons/" + l.file) != std::string::npos);  // the course lists it
        for (const char* section : {"\n## Run\n", "\n## Look at\n", "\n## Question\n", "\n## Answer\n", "\n## Turn it off\n"})
            CHECK(l.text.find(section) != std::string::npos);
        REQUIRE(!l.runs.empty());
        REQUIRE(!l.figures.empty());
        std::map<std::string, Outputs> outs;
        for (const auto& [id, args] : l.runs) {
            INFO("run " << id << ": " << args);
            // The command the reader is told to type is the one checked.
            CHECK(l.text.find("build/blksim " + args) != std::string::npos);
            outs[id].report = run_json(args);
        }
        for (const Figure& fig : l.figures) {
            INFO(l.file << ":" << fig.line << ": " << fig.quoted << " from run " << fig.run << ", " << fig.source);
            REQUIRE(outs.count(fig.run));
            Outputs& o = outs[fig.run];
            if (fig.source.rfind("trace:", 0) == 0 && o.trace.empty())
                o.trace = run_trace(l.runs.at(fig.run));
            const double v = simulated(fig.source, o);
            const double q = std::stod(fig.quoted);
            INFO("blksim: " << v);
            CHECK(std::abs(v - q) <= rounding_of(fig.quoted) * (1 + 1e-9));
            ++checked;
        }
    }
    CHECK(checked >= 13 * 3);
}

TEST_CASE("lessons: every teaching scenario is in a lesson", "[cli][teaching][lessons]") {
    std::string all;
    for (const fs::path& f : lesson_files())
        all += clitest::slurp(f);
    for (const auto& e : fs::directory_iterator(clitest::source_path("scenarios/teaching")))
        if (e.path().extension() == ".json") {
            INFO(e.path().filename());
            CHECK(all.find("<!-- run base: run scenarios/teaching/" + e.path().filename().string()) != std::string::npos);
        }
}
