// libFuzzer target: fio's input languages (tools/scenario/fio_job.h) and, when they parse,
// the jobs through the scenario decoder as `blksim fio` runs them (fio value syntax: sizes,
// bs ranges, cpus_allowed, prio, ...).
//
// An input starting with '-' is a command line (split at '\n' into arguments; a job file
// never starts with '-'), anything else a job file, so seeds are plain job files and
// command lines (fuzz/seeds/fio_cmdline/). Bad input = fio::ParseError from the reader, scenario::ScenarioError
// from the loader (both exit status 2 in the CLI).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "tools/scenario/fio_job.h"
#include "tools/scenario/scenario.h"

namespace {

// ${VAR} must not depend on the environment the fuzzer runs in: one variable is set.
std::optional<std::string> fake_getenv(const std::string& name) {
    if (name == "SIZE")
        return "1m";
    return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static fuzz::InputFile file(".fio");
    static const std::string dir = scenario::default_scenario_dir();
    const std::string_view text = fuzz::as_text(data, size);
    const bool command_line = !text.empty() && text[0] == '-';
    // Job files and includes are paths: the fuzzer must not make the reader open the host's
    // device or kernel files (/dev/stdin blocks, /dev/zero is endless). Not a parser finding.
    for (const char* host : {"/dev/", "/proc/", "/sys/"})
        if (text.find(host) != std::string_view::npos)
            return 0;

    fio::Environment env;
    env.ncpus = 8;
    env.getenv = fake_getenv;
    scenario::FioCommand cmd;
    cmd.device = "nullb";
    std::vector<std::string> warnings;  // collected, not printed: the fuzzer's output stays readable
    cmd.policy.warnings = &warnings;
    cmd.policy.getenv = fake_getenv;
    try {
        if (command_line) {
            cmd.fio_args = fuzz::split_lines(text);
            fio::parse_command_line(cmd.fio_args, env);
        } else {
            fio::parse_job_text(text, "fuzz.fio", env);
            cmd.fio_args = {file.write(data, size)};
        }
    } catch (const fio::ParseError&) {
        return 0;
    }
    try {
        scenario::load_fio_command(cmd, dir);
    } catch (const scenario::ScenarioError&) {
    }
    return 0;
}
