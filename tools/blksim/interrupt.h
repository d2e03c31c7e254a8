// SIGINT and SIGTERM while simulations run: the first one only sets a flag, which every
// running Machine polls at its audit instants (MachineConfig::stop) and the sweep scheduler
// checks before it starts a point, so that the command can stop cleanly: remove its partial
// files, write what finished marked incomplete, and exit 128 + the signal (130 for SIGINT,
// as shells expect). A second signal kills the process at once (the default action).
#pragma once

#include <atomic>

namespace blksim::cli {

// Installs the handlers (async-signal-safe: they store to lock-free atomics and reset the
// signal's action to the default).
void catch_interrupts();
// Set once a signal came; MachineConfig::stop points here.
const std::atomic<bool>& interrupted();
// The signal that came (SIGINT, SIGTERM) or 0.
int interrupt_signal();
// "SIGINT" or "SIGTERM", for messages.
const char* interrupt_signal_name();
// 128 + the signal.
int interrupted_exit_status();

}  // namespace blksim::cli
