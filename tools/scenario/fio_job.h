// fio's input languages: job files (INI) and command lines, read as fio reads them.
//
// The result is a list of jobs, each the ordered list of (option, value, where written) that
// applies to it: the options of the [global] sections above it (or given before the first
// --name), then its own. Nothing here knows what blksim models: the scenario loader maps
// the options onto the job config through the same decoder as a JSON scenario's (see
// scenario.h, load_fio_command), and says which options it ignores or does not support.
//
// What is read as fio reads it (fio 3.33, init.c / parse.c):
//   - [name] starts a job; a section whose name starts with "global" sets defaults for the
//     jobs below it, in this file and the files after it; several [global] sections add up.
//   - "option=value" or "option" (fio's "empty or boolean" options, e.g. thread, time_based);
//     blanks around name and value are dropped; ';' or '#' start a comment anywhere.
//   - "include FILE" pulls FILE's options into the current section (FILE relative to the
//     working directory, else to the including file); included files may include further
//     files but hold no sections.
//   - ${VAR} in a value is the environment variable VAR ("" when unset); $pagesize,
//     $mb_memory and $ncpus are the simulated machine's (see Environment), and a value that
//     had one of them and contains + - * / is computed, as fio does with bc
//     ("size=8*$mb_memory").
//   - Command lines: "--opt=value" or "-opt=value" (getopt_long_only: one dash is enough),
//     "--opt value" for options that need a value; --name=x starts job x, options before the
//     first --name are global (and --name=global starts a global section); arguments that
//     are not options are job files, read after the command line, and each job file after
//     the first starts with a stonewall. fio's own options (--output-format, --section,
//     --parse-only, --output, ...) are returned as settings.
// Stricter than fio, on purpose: a section header without ']', an empty section name, an
// option name with blanks in it, a line over 8 KiB, binary data, an include cycle and an
// unset ${VAR} left unterminated are errors (fio silently misreads most of them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace blksim::fio {

// Where an option was written: a line of a job file, or an argument of the command line.
struct Location {
    std::string file;   // the job file as opened (relative paths kept); empty: the command line
    uint32_t line = 0;  // 1-based line of file
    uint32_t arg = 0;   // 1-based index among the fio arguments when file is empty
    // "dir/job.fio:12" or "fio argument 3".
    std::string str() const;
};

struct Option {
    std::string name;                  // as written ("blocksize", not "bs")
    std::optional<std::string> value;  // after substitution; nullopt: written without '='
    std::string raw;                   // the text as written, e.g. "size=${SIZE}" or "-thread"
    Location where;
    // "file:line: raw" for messages.
    std::string describe() const { return where.str() + ": " + raw; }
};

struct Job {
    std::string name;              // the section name or --name value
    Location where;                // its [section] line or --name argument
    std::vector<Option> options;   // inherited global options first, then its own, in order
};

// The values of fio's reserved keywords, and the environment for ${VAR}.
struct Environment {
    uint64_t ncpus = 1;            // $ncpus: the simulated host's CPUs
    uint64_t mb_memory = 16384;    // $mb_memory: memory is not simulated; a fixed 16 GiB
    uint64_t pagesize = 4096;      // $pagesize
    // ${VAR}; default: the process environment.
    std::function<std::optional<std::string>(const std::string&)> getenv;
};

// fio's own (non-job) command-line options, as far as blksim honours them.
struct Settings {
    std::optional<Option> output_format;  // --output-format=normal|json|...
    std::optional<Option> output;         // --output=FILE
    bool parse_only = false;              // --parse-only: check, do not run
    std::vector<Option> ignored;          // --eta=never, --warnings-fatal, ...: no effect on a simulation
    std::vector<Option> unsupported;      // --client=..., --showcmd, ...: refused
};

struct Input {
    std::string source;  // names the input in messages: the job file(s), or "fio command line"
    std::vector<Job> jobs;
    Settings settings;
    // A command line with options but neither --name nor a job file (the mailing-list form
    // "fio -rw=read -bs=4k ..."): fio would say "No job(s) defined"; blksim runs the options
    // as one job named "job" and says so.
    bool implicit_job = false;
};

// Malformed input. The message starts with the place ("job.fio:12: " or "fio argument 3: ").
class ParseError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Limits on what is read.
inline constexpr size_t kMaxLineBytes = 8192;          // fio's OPT_LEN_MAX
inline constexpr size_t kMaxFileBytes = 64u << 20;     // a job file of 64 MiB is surely a mistake
inline constexpr int kMaxIncludeDepth = 16;

Input parse_job_file(const std::string& path, const Environment& env);
// name: how the text is named in messages; includes are looked up relative to its directory.
Input parse_job_text(std::string_view text, const std::string& name, const Environment& env);
// The arguments after "fio" (neither "fio" nor blksim's own "--").
Input parse_command_line(const std::vector<std::string>& args, const Environment& env);

// Substitutes ${VAR} and the $keywords in one value, as fio does (exposed for tests).
// Throws ParseError (without a place: the caller adds it) on an unterminated ${ or a
// computation that fails.
std::string substitute(const std::string& value, const Environment& env);

// fio's option vocabulary (fio 3.33: job options, their aliases, the options of its
// built-in engines), generated from fio itself by scripts/gen-fio-vocabulary.sh.
struct OptionInfo {
    std::string_view name;       // as it may be written
    std::string_view canonical;  // the option an alias stands for (name itself otherwise)
    bool needs_value;            // false: may be written without '=' (thread, time_based)
    std::string_view engines;    // "" for a job option; else the engines that have it ("io_uring,libaio")
    bool of_engine(std::string_view engine) const;
};
const OptionInfo* find_option(std::string_view name);
// The known option closest to a misspelt name, for "did you mean"; "" when none is close.
std::string closest_option(std::string_view name);

}  // namespace blksim::fio
