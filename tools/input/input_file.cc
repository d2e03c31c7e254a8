#include "tools/input/input_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace blksim::input {

namespace fs = std::filesystem;

namespace {

// "a.json -> b.json -> a.json": the links followed from `path` until one repeats (or the
// chain is too long to follow).
std::string link_chain(const std::string& path) {
    std::vector<fs::path> seen;
    fs::path p = path;
    std::string out = path;
    std::error_code ec;
    for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
        seen.push_back(fs::absolute(p, ec).lexically_normal());
        const fs::path target = fs::read_symlink(p, ec);
        if (ec)
            break;
        out += " -> " + target.string();
        p = target.is_absolute() ? target : p.parent_path() / target;
        if (std::find(seen.begin(), seen.end(), fs::absolute(p, ec).lexically_normal()) != seen.end())
            return out;
    }
    return out + " -> ...";
}

std::string size_text(uint64_t bytes) {
    if (bytes >= (uint64_t{1} << 30))
        return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / double(uint64_t{1} << 30));
    if (bytes >= (uint64_t{1} << 20))
        return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / double(uint64_t{1} << 20));
    return fmt::format("{} bytes", bytes);
}

}  // namespace

std::string not_a_regular_file(const std::string& path) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec == std::errc::too_many_symbolic_link_levels)
        return "a symbolic link loop: " + link_chain(path);
    if (ec == std::errc::permission_denied)
        return "permission denied";
    if (ec || st.type() == fs::file_type::not_found) {
        if (fs::is_symlink(fs::symlink_status(path, ec)))
            return "a symbolic link to " + fs::read_symlink(path, ec).string() + ", which does not exist";
        return "no such file";
    }
    switch (st.type()) {
        case fs::file_type::regular: return {};
        case fs::file_type::directory: return "a directory, not a regular file";
        case fs::file_type::character: return "a character device, not a regular file";
        case fs::file_type::block: return "a block device, not a regular file";
        case fs::file_type::fifo: return "a FIFO (named pipe), not a regular file";
        case fs::file_type::socket: return "a socket, not a regular file";
        default: return "not a regular file";
    }
}

std::optional<std::string> read_file(const std::string& path, uint64_t max_bytes, std::string& why) {
    why = not_a_regular_file(path);
    if (!why.empty())
        return std::nullopt;
    std::error_code ec;
    const uintmax_t size = fs::file_size(path, ec);
    const auto too_large = [&](uint64_t bytes) {
        return fmt::format("{}, more than the {} allowed", size_text(bytes), size_text(max_bytes));
    };
    if (!ec && size > max_bytes) {
        why = too_large(size);
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = "permission denied";
        return std::nullopt;
    }
    // The size may have changed since the check: never read past the limit.
    std::string text(ec ? 0 : static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    char buf[65536];
    while (in) {
        in.read(buf, sizeof buf);
        text.append(buf, static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes) {
            why = too_large(text.size()) + " (the file grew while it was read)";
            return std::nullopt;
        }
    }
    if (in.bad()) {
        why = "read error";
        return std::nullopt;
    }
    return text;
}

Line read_line(std::istream& in, std::string& line, std::size_t max_bytes) {
    line.clear();
    std::istream::sentry ok(in, /*noskipws=*/true);
    if (!ok)
        return Line::END;
    std::streambuf* sb = in.rdbuf();
    for (;;) {
        const int c = sb->sbumpc();
        if (c == std::char_traits<char>::eof()) {
            in.setstate(std::ios::eofbit);
            return line.empty() ? (in.setstate(std::ios::failbit), Line::END) : Line::READ;
        }
        if (c == '\n')
            return Line::READ;
        if (line.size() >= max_bytes)
            return Line::TOO_LONG;
        line.push_back(static_cast<char>(c));
    }
}

}  // namespace blksim::input
