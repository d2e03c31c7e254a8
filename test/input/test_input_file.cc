// tools/input: the one reader of user-named files, and the nesting limit of JSON text.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"
#include "tools/input/input_file.h"
#include "tools/input/nesting.h"

namespace fs = std::filesystem;
using namespace blksim;
using Catch::Matchers::Contains;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("read_file reads a regular file whole", "[input]") {
    clitest::TempDir t("input-read");
    write(t / "a.json", "{\"x\": 1}\n");
    std::string why;
    const auto text = input::read_file(t / "a.json", 1024, why);
    REQUIRE(text);
    CHECK(*text == "{\"x\": 1}\n");
    CHECK(why.empty());
}

TEST_CASE("read_file refuses what is not a regular file, saying what it is", "[input]") {
    clitest::TempDir t("input-kinds");
    std::string why;
    CHECK_FALSE(input::read_file(t / "missing", 1024, why));
    CHECK(why == "no such file");
    CHECK_FALSE(input::read_file(t.dir.string(), 1024, why));
    CHECK(why == "a directory, not a regular file");
    // /dev/zero would be read until memory runs out; a FIFO would block forever.
    CHECK_FALSE(input::read_file("/dev/zero", 1024, why));
    CHECK(why == "a character device, not a regular file");
    REQUIRE(mkfifo((t / "fifo").c_str(), 0600) == 0);
    CHECK_FALSE(input::read_file(t / "fifo", 1024, why));
    CHECK(why == "a FIFO (named pipe), not a regular file");
    CHECK(input::not_a_regular_file(t / "fifo") == why);
}

TEST_CASE("read_file follows symbolic links and describes a loop link by link", "[input]") {
    clitest::TempDir t("input-links");
    write(t / "real.json", "{}");
    fs::create_symlink("real.json", t / "link.json");
    std::string why;
    const auto text = input::read_file(t / "link.json", 1024, why);
    REQUIRE(text);
    CHECK(*text == "{}");

    fs::create_symlink("l2.json", t / "l1.json");
    fs::create_symlink("l1.json", t / "l2.json");
    CHECK_FALSE(input::read_file(t / "l1.json", 1024, why));
    CHECK(why == "a symbolic link loop: " + (t / "l1.json") + " -> l2.json -> l1.json");

    fs::create_symlink("gone.json", t / "dangling.json");
    CHECK_FALSE(input::read_file(t / "dangling.json", 1024, why));
    CHECK(why == "a symbolic link to gone.json, which does not exist");
}

TEST_CASE("read_file refuses a file above the size limit before reading it", "[input]") {
    clitest::TempDir t("input-size");
    write(t / "big", std::string(2000, 'x'));
    std::string why;
    CHECK(input::read_file(t / "big", 2000, why));
    CHECK_FALSE(input::read_file(t / "big", 1999, why));
    CHECK(why == "2000 bytes, more than the 1999 bytes allowed");
    write(t / "huge", std::string(3 << 20, 'x'));
    CHECK_FALSE(input::read_file(t / "huge", 1 << 20, why));
    CHECK(why == "3.0 MiB, more than the 1.0 MiB allowed");
}

TEST_CASE("read_line stops a line at the limit instead of growing it", "[input]") {
    std::istringstream in("ab\n\nlast");
    std::string line;
    CHECK(input::read_line(in, line, 4) == input::Line::READ);
    CHECK(line == "ab");
    CHECK(input::read_line(in, line, 4) == input::Line::READ);
    CHECK(line.empty());
    CHECK(input::read_line(in, line, 4) == input::Line::READ);
    CHECK(line == "last");
    CHECK(input::read_line(in, line, 4) == input::Line::END);

    std::istringstream no_newline(std::string(100, '\0'));
    CHECK(input::read_line(no_newline, line, 10) == input::Line::TOO_LONG);
    CHECK(line.size() == 10);
}

TEST_CASE("json_nesting_exceeded finds the first bracket beyond the limit", "[input]") {
    const std::string ok = std::string(64, '[') + std::string(64, ']');
    CHECK_FALSE(input::json_nesting_exceeded(ok));
    const std::string deep = "{\"a\":\n  " + std::string(64, '[') + std::string(64, ']') + "}";
    const auto at = input::json_nesting_exceeded(deep);
    REQUIRE(at);
    CHECK(at->line == 2);
    CHECK(at->column == 3 + 63);  // the 65th level: the 64th '[' of line 2
    CHECK(input::nesting_message(*at) ==
          "line 2, column 66: values nested more than 64 levels deep (at most 64 are allowed)");
    // Brackets inside strings (with escaped quotes) and comments do not nest.
    const std::string quoted = "{\"k\": \"\\\"" + std::string(100, '[') + "\", /* " + std::string(100, '{') +
                               " */ // " + std::string(100, '[') + "\n \"x\": 1}";
    CHECK_FALSE(input::json_nesting_exceeded(quoted));
    CHECK(input::json_nesting_exceeded("[[[", 2));
    CHECK_FALSE(input::json_nesting_exceeded("[[]][[]]", 2));
}
