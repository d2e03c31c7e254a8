// Helpers shared by the libFuzzer targets (fuzz/*.cc, built with -DBLKSIM_FUZZ=ON).
//
// The contract of every target: the project's own "bad input" exception (the one its command
// turns into exit status 2) is a correct answer and is swallowed; anything else (a crash, a
// sanitizer report, another exception escaping, a hang) reaches libFuzzer as a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace blksim::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// One string per line ('\n' separates; a trailing newline gives an empty last string): a
// list of arguments in one input.
inline std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (true) {
        const size_t nl = text.find('\n', start);
        lines.emplace_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
        if (nl == std::string_view::npos)
            return lines;
        start = nl + 1;
    }
}

// Readers that only take a path get the input through a file on tmpfs (one per process, so
// parallel -jobs=N workers do not trample each other's input).
class InputFile {
public:
    explicit InputFile(const char* suffix) {
        const char* dir = std::getenv("BLKSIM_FUZZ_TMP");
        path_ = std::string(dir ? dir : "/dev/shm") + "/blksim-fuzz-" + std::to_string(getpid()) + suffix;
    }
    ~InputFile() { std::remove(path_.c_str()); }
    const std::string& write(const uint8_t* data, size_t size) {
        std::FILE* f = std::fopen(path_.c_str(), "wb");
        if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
            std::abort();  // the harness, not the parser, failed: stop loudly
        return path_;
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace blksim::fuzz
