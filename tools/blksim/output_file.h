// Every file a command writes goes through OutputFile, so that a lost byte is an error that
// names the file, never an exit status 0 beside a truncated output:
//
// - open() comes before any simulation: a path that cannot be written is found at once,
//   not after a run of an hour;
// - a regular file (or one that does not exist yet) is written under a temporary name in its
//   directory and renamed into place by finish(): a run that fails or is interrupted leaves
//   the previous file, or none, never a partial one that looks complete. A device, a FIFO
//   and "-" (stdout) are written directly;
// - finish() flushes and closes, and throws OutputError naming the output when anything was
//   lost (ENOSPC, EIO, a full /dev/full); an OutputFile destroyed unfinished removes its
//   temporary file.
//
// Exit status of a failed write: 2, as for an output that cannot be opened (the commands'
// "cannot be written" status).
#pragma once

#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace blksim::cli {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class OutputFile {
public:
    OutputFile() = default;
    // `what` names the output in messages, before the path: the option ("--trace"), or
    // "" for a file that is not named by an option. Throws OutputError.
    OutputFile(const std::string& path, std::string what) { open(path, std::move(what)); }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();

    void open(const std::string& path, std::string what);
    bool is_open() const { return open_; }
    std::ostream& stream();
    void write(std::string_view text) { stream().write(text.data(), static_cast<std::streamsize>(text.size())); }
    // Flush, close and put the file in place; throws OutputError naming it on any error.
    void finish();
    // "what path", or "stdout" for "-", as messages name it.
    std::string name() const;

private:
    [[noreturn]] void fail(const std::string& why, int err);

    std::string path_, what_;
    std::string target_;   // path_ with its symlinks followed
    std::string temp_;     // the temporary file renamed to target_ by finish(); "" when direct
    std::ofstream file_;
    bool stdout_ = false;
    bool open_ = false;
};

// Writes `text` to the output `path` ("-" = stdout) at once; throws OutputError.
void write_output(const std::string& path, const std::string& what, std::string_view text);

// fio's --output=FILE: stdout goes to FILE, and messages about stdout name it as `what`.
// False when FILE cannot be opened.
bool redirect_stdout(const std::string& path, const std::string& what);

// At exit: flushes and closes stdout. "" when every byte got out, else the message that says
// it did not (once: an error an OutputFile already reported is not reported again); `err`:
// the errno of a write that failed earlier, if known.
std::string close_stdout(int err = 0);

}  // namespace blksim::cli
