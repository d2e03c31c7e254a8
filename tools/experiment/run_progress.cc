#include "tools/experiment/run_progress.h"

#include <array>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "models/topology/machine.h"
#include "tools/experiment/progress.h"

namespace blksim::experiment {

namespace {

using Clock = std::chrono::steady_clock;

// Between two looks at the wall clock: cheap next to the events of a millisecond.
constexpr sim::Duration kTick = sim::Duration::ns(1'000'000);
constexpr auto kRedraw = std::chrono::milliseconds(250);
constexpr auto kFirstDraw = std::chrono::milliseconds(100);

// fio's run-state letter of a thread, as fio 3.33's eta.c check_str_update() sets it: P not
// started; exited: X after an error (td->error: rate_min, a trim the disk refused), else _;
// running: M/m mixed (R/r or W/w when rwmixread is 100 or 0), R/r read, W/w write (trimwrite
// too: td_write() is tested before the trim case), D/d trim; upper case sequential, lower
// case random (td_random()).
char state_letter(const workload::JobThread& t) {
    if (t.exited())
        return t.result().error ? 'X' : '_';
    if (!t.started())
        return 'P';
    const workload::JobConfig& c = t.config();
    const bool rnd = c.random();
    auto letter = [rnd](char seq) { return rnd ? static_cast<char>(seq - 'A' + 'a') : seq; };
    if (c.reads() && c.writes())  // td_rw()
        return letter(c.rwmixread == 100 ? 'R' : c.rwmixread == 0 ? 'W' : 'M');
    if (c.reads())
        return letter('R');
    if (c.writes())
        return letter('W');
    return letter('D');
}

// "R(2),_(1)": runs of one letter, as fio prints them.
std::string run_string(const std::string& letters) {
    std::string out;
    for (std::size_t i = 0; i < letters.size();) {
        std::size_t j = i;
        while (j < letters.size() && letters[j] == letters[i])
            ++j;
        out += fmt::format("{}{}({})", out.empty() ? "" : ",", letters[i], j - i);
        i = j;
    }
    return out;
}

// fio's num2str as its ETA line uses it: up to four digits as they are ("1636"), else three
// significant ones with a unit ("19.5Gi", "31.5k").
std::string scaled(double v, double base, const std::array<const char*, 5>& units) {
    if (v < 10000)
        return fmt::format("{:.0f}{}", v, units[0]);
    std::size_t u = 0;
    while (v >= 1000 && u + 1 < units.size()) {
        v /= base;
        ++u;
    }
    return fmt::format("{:.{}f}{}", v, v < 10 ? 2 : v < 100 ? 1 : 0, units[u]);
}

std::string bandwidth(double b) { return scaled(b, 1024, {"B", "KiB", "MiB", "GiB", "TiB"}) + "/s"; }

std::string count(double n) { return scaled(n, 1000, {"", "k", "M", "G", "T"}); }

// Both directions when the run has done writes, reads alone otherwise (fio leaves out a
// direction that has seen no I/O).
std::string per_dir(const double v[2], std::string (*fmt_one)(double)) {
    if (v[1] > 0 && v[0] > 0)
        return fmt::format("r={},w={}", fmt_one(v[0]), fmt_one(v[1]));
    if (v[1] > 0)
        return "w=" + fmt_one(v[1]);
    return "r=" + fmt_one(v[0]);
}

class ProgressLine final : public topology::RunProgress {
public:
    ProgressLine() : wall0_(Clock::now()), drawn_at_(wall0_ - kRedraw + kFirstDraw) {}
    ~ProgressLine() override {
        if (width_ > 0)
            std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
    }
    sim::Duration interval() const override { return kTick; }

    void tick(const topology::Machine& m, sim::Time now) override {
        const Clock::time_point wall = Clock::now();
        if (wall - drawn_at_ < kRedraw)
            return;
        drawn_at_ = wall;
        ProgressSnapshot s;
        uint64_t bytes[2] = {0, 0}, ios[2] = {0, 0};
        uint32_t running = 0;
        for (const auto& t : m.threads()) {
            s.states += state_letter(*t);
            running += t->started() && !t->exited();
            s.done += t->progress(now);
            for (unsigned d = 0; d < 2; ++d) {
                bytes[d] += t->result().dir[d].io_bytes;
                ios[d] += t->result().dir[d].total_ios;
            }
        }
        if (!m.threads().empty())
            s.done /= static_cast<double>(m.threads().size());
        const double dt = (now - last_sim_).seconds();
        for (unsigned d = 0; d < 2; ++d) {
            s.bytes_per_s[d] = dt > 0 ? static_cast<double>(bytes[d] - last_bytes_[d]) / dt : 0;
            s.ios_per_s[d] = dt > 0 ? static_cast<double>(ios[d] - last_ios_[d]) / dt : 0;
            last_bytes_[d] = bytes[d];
            last_ios_[d] = ios[d];
        }
        last_sim_ = now;
        if (s.done > 0)
            s.eta_s = std::chrono::duration<double>(wall - wall0_).count() * (1 - s.done) / s.done;
        std::string line = fmt::format("Jobs: {} (f={}): {}", running, running, format_progress_line(s));
        const std::size_t len = line.size();
        if (len < width_)
            line.append(width_ - len, ' ');  // over the end of a longer line before it
        width_ = len;
        std::fprintf(stderr, "\r%s", line.c_str());
        std::fflush(stderr);
    }

private:
    Clock::time_point wall0_, drawn_at_;
    sim::Time last_sim_ = sim::Time::zero();
    uint64_t last_bytes_[2] = {0, 0}, last_ios_[2] = {0, 0};
    std::size_t width_ = 0;  // of the line on the terminal; 0: none drawn
};

}  // namespace

std::string format_progress_line(const ProgressSnapshot& s) {
    return fmt::format("[{}][{:.1f}%][{}][{} IOPS][eta {}]", run_string(s.states), s.done * 100,
                       per_dir(s.bytes_per_s, bandwidth), per_dir(s.ios_per_s, count), s.eta_s < 0 ? "--m:--s" : hms(s.eta_s));
}

bool progress_line_wanted(bool quiet, const std::string& trace_file, const std::string& timeseries_file) {
    if (quiet || !stderr_is_tty())
        return false;
    const bool streams_to_stdout = trace_file == "-" || timeseries_file == "-";
    return !(streams_to_stdout && isatty(STDOUT_FILENO));
}

std::unique_ptr<topology::RunProgress> make_progress_line() { return std::make_unique<ProgressLine>(); }

}  // namespace blksim::experiment
