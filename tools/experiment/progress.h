// A fio-style progress line on stderr while simulations run side by side:
//   sweep: 2 threads: [9/16 runs] [56.2% done] [elapsed 00m:04s] [eta 00m:03s]
// rewritten in place with '\r', finished with a newline. The ETA assumes the remaining runs
// take as long on average as the finished ones.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace blksim::experiment {

class Progress {
public:
    // enabled: print at all (the command decides: stderr is a tty, or --progress).
    Progress(std::string label, std::size_t total, unsigned threads, bool enabled);
    void update(std::size_t done);  // from one thread at a time
    void finish();

    // The line for `done` of `total` after `elapsed` seconds (for tests).
    static std::string line(const std::string& label, std::size_t done, std::size_t total, unsigned threads,
                            double elapsed);

private:
    std::string label_;
    std::size_t total_;
    unsigned threads_;
    bool enabled_;
    std::size_t last_len_ = 0;
    std::chrono::steady_clock::time_point start_;
};

// fio's eta format: "01h:02m:03s", without the hours when there are none.
std::string hms(double secs);

// Whether stderr is a terminal (the default for showing progress).
bool stderr_is_tty();

}  // namespace blksim::experiment
