// What the differential tests of the kernel's schedulers (kernel:<name>) share: the
// reference 6.1 tree, the dispatch lines of a trace and the comparison of two orders.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test/cli/cli_fixture.h"

namespace kernelsched {

// The reference tree, or "" (tests are skipped, saying so) when linux-source-6.1 was not
// installed when blksim was configured. `file`: the scheduler's file in block/.
inline std::string kernel_tree(const std::string& file = "mq-deadline.c") {
    const std::string t = BLKSIM_KERNEL_61_TREE;
    if (t.empty() || !std::filesystem::exists(t + "/block/" + file)) {
        WARN("linux-source-6.1 is not installed (/usr/src/linux-source-6.1.tar.xz): block/" << file << " not tested");
        return {};
    }
    return t;
}

// The lines of a blkparse-style trace with one action (D: dispatch, I: insert).
inline std::vector<std::string> actions(const std::string& trace, const std::string& which) {
    std::vector<std::string> d;
    std::istringstream in(trace);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string dev, cpu, seq, time, pid, action;
        if (f >> dev >> cpu >> seq >> time >> pid >> action && action == which)
            d.push_back(line);
    }
    return d;
}

inline std::vector<std::string> dispatches(const std::string& trace) { return actions(trace, "D"); }

struct Traces {
    std::vector<std::string> blksim, kernel;
};

// Two runs of blksim (`a`, `b`: `run` and its arguments), each with a --trace: their D events.
inline Traces run_pair(const std::string& a, const std::string& b, const std::string& tmp_name) {
    clitest::TempDir tmp(tmp_name);
    const clitest::CliResult ra = clitest::run_blksim(a + " --trace " + tmp / "a.trace");
    INFO(ra.out);
    REQUIRE(ra.status == 0);
    const clitest::CliResult rb = clitest::run_blksim(b + " --trace " + tmp / "b.trace");
    INFO(rb.out);
    REQUIRE(rb.status == 0);
    return {dispatches(clitest::slurp(tmp / "a.trace")), dispatches(clitest::slurp(tmp / "b.trace"))};
}

// Same dispatch order, or the first difference named.
inline void require_same(const Traces& t) {
    REQUIRE(t.blksim.size() > 100);  // the scenario dispatched enough to tell orders apart
    const size_t n = std::min(t.blksim.size(), t.kernel.size());
    for (size_t i = 0; i < n; ++i) {
        INFO("dispatch #" << i + 1 << "\n  blksim: " << t.blksim[i] << "\n  kernel: " << t.kernel[i]);
        REQUIRE(t.blksim[i] == t.kernel[i]);
    }
    REQUIRE(t.blksim.size() == t.kernel.size());
}

// A trace's D lines without their sequence numbers (message notes take sequence numbers of
// their CPU, so traces with and without --explain are compared without them), and the
// texts of the message notes that begin with `prefix` ("kernel:kyber: ", "kernel:bfq: ").
struct SplitTrace {
    std::vector<std::string> dispatched;
    std::vector<std::string> notes;
};

inline SplitTrace split_trace(const std::string& text, const std::string& prefix) {
    SplitTrace s;
    std::istringstream in(text);
    std::string l;
    const std::string note = "  m   N " + prefix;
    while (std::getline(in, l)) {
        if (const size_t m = l.find(note); m != std::string::npos) {
            s.notes.push_back(l.substr(m + note.size()));
            continue;
        }
        std::istringstream f(l);
        std::string dev, cpu, seq, rest;
        f >> dev >> cpu >> seq;
        std::getline(f, rest);
        if (rest.find("  D  ") != std::string::npos)
            s.dispatched.push_back(dev + " " + cpu + rest);
    }
    return s;
}

}  // namespace kernelsched
