#include "tools/blksim/interrupt.h"

#include <csignal>

namespace blksim::cli {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler may only touch lock-free atomics");

extern "C" void on_signal(int sig) {
    g_signal.store(sig, std::memory_order_relaxed);
    g_interrupted.store(true, std::memory_order_relaxed);
}

}  // namespace

void catch_interrupts() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_RESETHAND;  // a second signal: the default action, at once
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

const std::atomic<bool>& interrupted() { return g_interrupted; }

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

const char* interrupt_signal_name() { return interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT"; }

int interrupted_exit_status() { return 128 + (interrupt_signal() ? interrupt_signal() : SIGINT); }

}  // namespace blksim::cli
