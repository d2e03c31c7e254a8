// Explained decisions (--explain): the schedulers, the block layer's core and the devices say
// why they chose what they did, as one line of text at the instant of the choice. The lines go
// to the trace sinks as blktrace messages (the kernel's blk_add_trace_msg(), which bfq's
// bfq_log() and blk-iocost use), so blkparse prints them among the events as "m   N <text>".
//
// Each model holds an Explain and calls it at a decision:
//
//   explain_(now, "writes starved {}/{}, switching to writes", starved, writes_starved);
//
// Off (no sink attached, the normal case) the call is one test of a pointer: the arguments are
// plain values, and the text is formatted only when a sink is attached, out of line.
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "models/blkmq/trace.h"
#include "sim/time.h"

namespace blksim::blkmq {

class Explain {
public:
    // `sink` receives the messages as disk `dev` (TraceSink::message); nullptr turns them off.
    void attach(TraceSink* sink, uint32_t dev) {
        sink_ = sink;
        dev_ = dev;
    }
    explicit operator bool() const { return sink_ != nullptr; }
    // The CPU the model runs on now, for the decisions made without one at hand (a scheduler's
    // dispatch runs on the CPU that runs the hardware queue; the core says which).
    void set_cpu(uint32_t cpu) { cpu_ = cpu; }
    uint32_t cpu() const { return cpu_; }

    // One decision at `t` on the current CPU.
    template <typename... T>
    void operator()(sim::Time t, fmt::format_string<T...> f, const T&... args) const {
        if (sink_) [[unlikely]]
            say(t, cpu_, f, fmt::make_format_args(args...));
    }
    // One decision at `t` on `cpu`.
    template <typename... T>
    void on_cpu(sim::Time t, uint32_t cpu, fmt::format_string<T...> f, const T&... args) const {
        if (sink_) [[unlikely]]
            say(t, cpu, f, fmt::make_format_args(args...));
    }

private:
    [[gnu::cold, gnu::noinline]] void say(sim::Time t, uint32_t cpu, fmt::string_view f, fmt::format_args args) const;

    TraceSink* sink_ = nullptr;
    uint32_t dev_ = 0;
    uint32_t cpu_ = 0;
};

}  // namespace blksim::blkmq
