#include "tools/blksim/compare_exact.h"

#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/output_file.h"
#include "tools/blksim/spawn.h"
#include "tools/experiment/compare.h"

namespace blksim::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kContext = 3;  // lines shown before the first difference, and after it

// The command line that runs `v` once with `seed`, its trace into `trace` (blksim run, or
// blksim fio for a fio command line).
std::vector<std::string> variant_args(const ExactVariant& v, uint64_t seed, const std::string& trace) {
    std::vector<std::string> args = {v.binary};
    if (v.source.is_fio()) {
        args.insert(args.end(), {"fio", "--device", v.source.device});
        if (v.source.strict)
            args.push_back("--strict");
    } else {
        args.insert(args.end(), {"run", v.source.scenario});
    }
    for (const std::string& s : v.sets)
        args.insert(args.end(), {"--set", s});
    if (!v.scheduler.empty())
        args.insert(args.end(), {"--scheduler", v.scheduler});
    args.insert(args.end(), {"--seed", std::to_string(seed), "-q", "--trace", trace});
    if (v.source.is_fio()) {
        args.push_back("--");
        args.insert(args.end(), v.source.fio_args.begin(), v.source.fio_args.end());
    }
    return args;
}

// A blkparse text line's event, for the summary: "time 0.000123456, cpu 1, D, sector 2048".
std::string event_of(const std::string& line) {
    std::istringstream in(line);
    std::string dev, cpu, seq, time, pid, action, rwbs, sector;
    in >> dev >> cpu >> seq >> time >> pid >> action >> rwbs >> sector;
    std::string out = fmt::format("time {}, cpu {}, {}", time, cpu, action);
    if (!sector.empty() && sector.find_first_not_of("0123456789") == std::string::npos)
        out += fmt::format(", sector {}", sector);
    return out;
}

std::optional<std::string> next_line(std::ifstream& in) {
    std::string line;
    if (!std::getline(in, line))
        return std::nullopt;
    return line;
}

// The first line where the two traces differ, with context; empty when they are the same.
// `lines` counts the lines compared.
std::string first_difference(const std::string& path_a, const std::string& path_b, const ExactVariant& a,
                             const ExactVariant& b, uint64_t& lines) {
    std::ifstream fa(path_a), fb(path_b);
    if (!fa || !fb)
        throw std::runtime_error(fmt::format("cannot read the trace {}", !fa ? path_a : path_b));
    std::deque<std::string> before;
    lines = 0;
    for (;;) {
        std::optional<std::string> la = next_line(fa), lb = next_line(fb);
        if (!la && !lb)
            return {};
        ++lines;
        if (la && lb && *la == *lb) {
            before.push_back(std::move(*la));
            if (before.size() > kContext)
                before.pop_front();
            continue;
        }
        std::string out = fmt::format("the traces differ first at line {}{}:\n", lines,
                                      lines > 1 ? fmt::format(" (lines 1-{} are the same)", lines - 1) : "");
        out += fmt::format("  {}: {}\n  {}: {}\n", a.label, la ? event_of(*la) : "its trace ends here", b.label,
                           lb ? event_of(*lb) : "its trace ends here");
        for (const std::string& l : before)
            out += fmt::format("    {}\n", l);
        for (auto [f, first, label] : {std::tuple{&fa, &la, &a.label}, std::tuple{&fb, &lb, &b.label}}) {
            std::optional<std::string> l = *first;
            for (std::size_t i = 0; i < kContext && l; ++i, l = next_line(*f))
                out += fmt::format("  {} {}\n", i == 0 ? *label + ">" : std::string(label->size() + 1, ' '), *l);
        }
        return out;
    }
}

}  // namespace

int compare_exact(const ExactVariant& a, const ExactVariant& b, uint64_t seed) {
    const fs::path dir = fs::temp_directory_path();
    const std::string ta = (dir / fmt::format("blksim-exact-{}-a.trace", ::getpid())).string();
    const std::string tb = (dir / fmt::format("blksim-exact-{}-b.trace", ::getpid())).string();
    struct Remove {
        std::string a, b;
        ~Remove() {
            std::error_code ec;
            fs::remove(a, ec);
            fs::remove(b, ec);
        }
    } remove{ta, tb};
    for (const auto& [v, trace] : {std::pair{&a, ta}, std::pair{&b, tb}}) {
        int status = 0;
        try {
            status = spawn_and_wait(variant_args(*v, seed, trace), "/dev/null");
        } catch (const std::runtime_error& e) {
            fmt::print(stderr, "blksim: compare --exact: variant {}: {}\n", v->label, e.what());
            return 2;
        }
        if (status != 0) {
            fmt::print(stderr, "blksim: compare --exact: variant {} ({}) failed with exit status {} (its message is "
                               "above)\n", v->label, v->binary, status);
            return status > 0 ? status : 1;
        }
    }
    uint64_t lines = 0;
    std::string diff;
    try {
        diff = first_difference(ta, tb, a, b, lines);
    } catch (const std::runtime_error& e) {
        fmt::print(stderr, "blksim: compare --exact: {}\n", e.what());
        return 1;
    }
    std::string out = fmt::format("blksim compare --exact: seed {}, the request traces (--trace) of\n", seed);
    for (const ExactVariant* v : {&a, &b})
        out += fmt::format("  {}: {}{}\n", v->label, experiment::variant_text(v->source.describe(v->scheduler), v->sets),
                           v->binary == self_binary() ? "" : fmt::format(" (run by {})", v->binary));
    out += diff.empty() ? fmt::format("identical: {} lines\n", lines) : diff;
    write_output("-", "", out);
    return diff.empty() ? 0 : EXIT_REGRESSION;
}

}  // namespace blksim::cli
