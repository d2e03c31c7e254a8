#include "tools/blksim/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace blksim::cli {

namespace {

namespace fs = std::filesystem;

std::string g_stdout_name = "stdout";  // fio --output=FILE renames it
bool g_stdout_reported = false;        // its error was reported already

std::string reason(int err) { return err ? fmt::format(" ({})", std::strerror(err)) : std::string{}; }

// The file the path ends at: a symlink is followed, so that the rename replaces the file it
// points to, not the link.
fs::path resolve(const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::canonical(path, ec);
    return ec ? fs::path(path) : p;
}

}  // namespace

OutputFile::~OutputFile() {
    if (open_ && !temp_.empty()) {
        file_.close();
        ::unlink(temp_.c_str());
    }
}

void OutputFile::fail(const std::string& why, int err) {
    if (!temp_.empty()) {
        file_.close();
        ::unlink(temp_.c_str());
        temp_.clear();
    }
    open_ = false;
    if (stdout_)
        g_stdout_reported = true;
    throw OutputError(fmt::format("{}: {}{}", name(), why, reason(err)));
}

std::string OutputFile::name() const {
    if (stdout_)
        return g_stdout_name;
    return what_.empty() ? path_ : what_ + " " + path_;
}

void OutputFile::open(const std::string& path, std::string what) {
    path_ = path;
    what_ = std::move(what);
    if (path == "-") {
        stdout_ = open_ = true;
        return;
    }
    const fs::path target = resolve(path);
    struct stat st {};
    const bool exists = ::stat(target.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        // A device or a FIFO: written in place (there is nothing to rename).
        file_.open(target, std::ios::binary | std::ios::trunc);
        if (!file_)
            fail("cannot open for writing", errno);
        open_ = true;
        return;
    }
    if (exists && ::access(target.c_str(), W_OK) != 0)
        fail("cannot open for writing", errno);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmpl = (dir / ("." + target.filename().string() + ".blksim-XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        fail("cannot open for writing", errno);
    // mkstemp's 0600 would stay on the renamed file: give it the mode the file has, or the
    // one a new file gets.
    mode_t mode = st.st_mode & 07777;
    if (!exists) {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    (void)::fchmod(fd, mode);
    ::close(fd);
    temp_ = tmpl;
    target_ = target.string();
    file_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!file_)
        fail("cannot open for writing", errno);
    open_ = true;
}

std::ostream& OutputFile::stream() { return stdout_ ? std::cout : static_cast<std::ostream&>(file_); }

void OutputFile::finish() {
    if (!open_)
        return;
    errno = 0;
    if (stdout_) {
        std::cout.flush();
        if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
            fail("write error", errno);
        open_ = false;
        return;
    }
    file_.flush();
    if (!file_)
        fail("write error", errno);
    file_.close();
    if (!file_)
        fail("write error", errno);
    if (!temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0)
        fail("cannot put the file in place", errno);
    temp_.clear();
    open_ = false;
}

void write_output(const std::string& path, const std::string& what, std::string_view text) {
    OutputFile f(path, what);
    f.write(text);
    f.finish();
}

bool redirect_stdout(const std::string& path, const std::string& what) {
    if (!std::freopen(path.c_str(), "w", stdout))
        return false;
    g_stdout_name = what;
    return true;
}

std::string close_stdout(int err) {
    std::cout.flush();
    errno = 0;
    const bool bad = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout;
    if (errno)
        err = errno;
    const bool close_failed = std::fclose(stdout) != 0;
    if ((!bad && !close_failed) || g_stdout_reported)
        return {};
    g_stdout_reported = true;
    return fmt::format("{}: write error{}", g_stdout_name, reason(bad ? err : errno));
}

}  // namespace blksim::cli
