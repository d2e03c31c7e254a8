// What the command-line tests share: run a shell command or the blksim binary and keep its
// exit status and output.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

namespace clitest {

struct CliResult {
    int status;
    std::string out;  // what the command wrote to its stdout (add 2>&1 for stderr)
};

inline CliResult shell(const std::string& cmd) {
    CliResult r{-1, {}};
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        r.out.append(buf.data(), n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

// blksim with `args`; stdout then stderr, or stdout alone.
inline CliResult run_blksim(const std::string& args, bool with_stderr = true) {
    return shell(std::string(BLKSIM_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null"));
}

// A file's bytes ("" if it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string source_path(const std::string& rel) { return std::string(BLKSIM_SOURCE_DIR) + "/" + rel; }

// A fresh directory $TMPDIR/blksim-NAME-PID, removed with everything in it at the end.
struct TempDir {
    std::filesystem::path dir;
    explicit TempDir(const std::string& name)
        : dir(std::filesystem::temp_directory_path() / ("blksim-" + name + "-" + std::to_string(getpid()))) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() { std::filesystem::remove_all(dir); }
    std::string operator/(const std::string& f) const { return (dir / f).string(); }
};

// Whether real fio is installed, for the tests that compare blksim's report with it; when
// not, the comparison is skipped with a warning.
inline bool have_fio() {
    static const bool ok = shell("fio --version 2>/dev/null").out.starts_with("fio-");
    if (!ok)
        WARN("fio is not installed: the comparison with real fio 3.33 is skipped");
    return ok;
}

// The JSON document in what fio --output-format=json printed on stdout: fio prints notices
// around it on a loaded machine ("fio: job ... hasn't exited"), so it is the lines from the
// first "{" to the last "}".
inline std::string fio_json_text(const std::string& out) {
    const std::size_t from = out.starts_with("{") ? 0 : out.find("\n{");
    const std::size_t to = out.rfind("\n}");
    INFO(out);
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    return out.substr(from, to + 2 - from);
}

}  // namespace clitest
