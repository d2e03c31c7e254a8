// Bad input end to end: files that are not files, files too deep, too large or pointing out
// of their folder, --set paths that cannot be, machines too large to build. Each gives one
// message naming the file and place and exits 2; none crashes or eats memory.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

namespace fs = std::filesystem;
using clitest::run_blksim;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string src(const std::string& rel) { return clitest::source_path(rel); }
const std::string kExample = src("scenarios/examples/nullblk-psync-qd1.json");

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The one line of stderr of a command that must fail with bad input.
std::string bad_input(const std::string& args) {
    const auto r = clitest::shell(std::string(BLKSIM_BINARY) + " " + args + " 2>&1 >/dev/null");
    CHECK(r.status == 2);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    return r.out;
}

// Copies the DiskSim fixture (description, model, seek table) into dir, the description's
// "Model = source ..." replaced by `model_source`.
void disksim_copy(const std::string& dir, const std::string& model_source) {
    for (const char* f : {"atlas10k.model", "atlas10k.seek"})
        fs::copy_file(src(std::string("test/fixtures/disksim/") + f), dir + "/" + f);
    std::ifstream in(src("test/fixtures/disksim/atlas10k.diskspecs"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "source atlas10k.model";
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), "source " + model_source);
    write(dir + "/atlas10k.diskspecs", text);
}

}  // namespace

TEST_CASE("a scenario nested 50,000 deep is refused at its line and column", "[cli][input]") {
    clitest::TempDir t("deep-json");
    write(t / "deep.json", "{\"jobs\": " + std::string(50000, '[') + std::string(50000, ']') + "}");
    const std::string err = bad_input("validate " + (t / "deep.json"));
    CHECK_THAT(err, StartsWith("blksim: " + (t / "deep.json") + ": line 1, column 73: values nested more than 64"));
    // The same limit for a --set value.
    CHECK_THAT(bad_input("validate " + kExample + " --set 'jobs.0.x=" + std::string(100, '[') + "'"),
               Contains("the value: line 1, column 65: values nested more than 64 levels deep"));
}

TEST_CASE("a DiskSim description nested 40,000 deep is refused at its line", "[cli][input][disksim]") {
    clitest::TempDir t("deep-diskspecs");
    write(t / "deep.diskspecs", "disksim_disk X {\n Model = " + std::string(40000, '[') + "1" +
                                    std::string(40000, ']') + "\n}\n");
    CHECK(bad_input("import-disksim " + (t / "deep.diskspecs") + " --out -") ==
          "blksim: " + (t / "deep.diskspecs") +
              ":2: lists and blocks nested more than 64 levels deep (at most 64 are allowed)\n");
}

TEST_CASE("--set: a 20-digit index and a 20,000-component path are bad input", "[cli][input]") {
    CHECK_THAT(bad_input("run -q " + kExample + " --set jobs.99999999999999999999.iodepth=4"),
               Contains("--set 'jobs.99999999999999999999.iodepth=4': index 99999999999999999999 is out of range: "
                        "'jobs' has 1 element"));
    std::string path;
    for (int i = 0; i < 20000; ++i)
        path += "a.";
    const std::string err = bad_input("validate " + kExample + " --set " + path + "b=1");
    CHECK_THAT(err, Contains("the path has 20001 components; at most 64 are allowed"));
    CHECK(err.size() < 300);  // the --set is shown by its start only
    // 64 components are still a path (the schema then refuses the unknown key).
    std::string ok;
    for (int i = 0; i < 63; ++i)
        ok += "a.";
    CHECK_THAT(bad_input("validate " + kExample + " --set " + ok + "b=1"), Contains("/a"));
    // A long value the schema refuses is named by the start of its --set too.
    std::string jobs = "jobs=[";
    for (int i = 0; i < 500; ++i)
        jobs += std::string(i ? "," : "") + "{\"name\":\"j" + std::to_string(i) + "\",\"bogus\":1}";
    const std::string long_set = bad_input("validate " + kExample + " --set '" + jobs + "]'");
    CHECK_THAT(long_set, Contains("unknown fio option 'bogus'"));
    CHECK_THAT(long_set, Contains("(value from --set jobs=[{\"name\":\"j0\""));
    CHECK_THAT(long_set, !Contains("j499"));
}

TEST_CASE("every reader refuses a device, a directory or a symbolic link loop in one line", "[cli][input]") {
    clitest::TempDir t("not-files");
    fs::create_symlink("l2.json", t / "l1.json");
    fs::create_symlink("l1.json", t / "l2.json");
    CHECK(bad_input("run -q /dev/zero") == "blksim: /dev/zero: cannot read scenario: a character device, not a regular file\n");
    CHECK(bad_input("run -q " + t.dir.string()) ==
          "blksim: " + t.dir.string() + ": cannot read scenario: a directory, not a regular file\n");
    CHECK(bad_input("run -q " + (t / "l1.json")) == "blksim: " + (t / "l1.json") +
                                                        ": cannot read scenario: a symbolic link loop: " + (t / "l1.json") +
                                                        " -> l2.json -> l1.json\n");
    CHECK_THAT(bad_input("fio --device /dev/zero -- --name=a"), Contains("/dev/zero: cannot read scenario: a character device"));

    write(t / "inc.fio", "[a]\nruntime=10ms\ninclude /dev/zero\n");
    CHECK(bad_input("fio --device nullb -q -- " + (t / "inc.fio")) ==
          "blksim: " + (t / "inc.fio") + ":3: cannot read job file '/dev/zero': a character device, not a regular file\n");
    write(t / "fio-zero.json", "{\"host\":{\"cpus\":2,\"cost_profile\":\"desktop-8t\"},"
                               "\"devices\":[{\"name\":\"n\",\"model\":\"null_blk\"}],\"fio\":\"/dev/zero\"}");
    CHECK(bad_input("run -q " + (t / "fio-zero.json")) ==
          "blksim: " + (t / "fio-zero.json") +
              ": /fio: cannot read the fio job file '/dev/zero': a character device, not a regular file\n");
    write(t / "fio-missing.json", "{\"host\":{\"cpus\":2,\"cost_profile\":\"desktop-8t\"},"
                                  "\"devices\":[{\"name\":\"n\",\"model\":\"null_blk\"}],\"fio\":\"nope.fio\"}");
    CHECK(bad_input("run -q " + (t / "fio-missing.json")) == "blksim: " + (t / "fio-missing.json") +
                                                                 ": /fio: cannot read the fio job file '" + (t / "nope.fio") +
                                                                 "': no such file\n");

    CHECK_THAT(bad_input("validate-disk /dev/zero --device atlas10k"),
               Contains("/dev/zero: cannot open the trace: a character device, not a regular file"));
    CHECK_THAT(bad_input("validate-disk " + src("test/fixtures/disksim/atlas10k-1000.trace") + " --device /dev/zero"),
               Contains("/dev/zero: cannot open the device profile: a character device"));
    CHECK_THAT(bad_input("sweep-merge /dev/zero --csv -"), Contains("/dev/zero: cannot open the file: a character device"));
    CHECK_THAT(bad_input("report --sweep /dev/zero -o " + (t / "r.html")),
               Contains("/dev/zero: cannot open the file: a character device"));
    CHECK_THAT(bad_input("reproduce --reduced --data /dev/zero"), Contains("/dev/zero: cannot open the file: a character device"));
    CHECK_THAT(bad_input("run -q " + kExample + " --set jobs.0.read_iolog=/dev/zero"),
               Contains("/dev/zero: a character device, not a regular file"));
    // An iolog is read line by line, and a line has a limit.
    write(t / "long.log", "fio version 2 iolog\n" + std::string(100000, 'x'));
    CHECK_THAT(bad_input("run -q " + kExample + " --set jobs.0.read_iolog=" + (t / "long.log")),
               Contains("long.log: line 2: longer than 65536 bytes (not a fio iolog)"));
    CHECK_THAT(bad_input("run -q " + kExample + " --set jobs.0.read_iolog=" + (t / "l1.json")),
               Contains("l1.json: a symbolic link loop: "));
}

TEST_CASE("a DiskSim description reads only files in its own folder and echoes none of them",
          "[cli][input][disksim]") {
    clitest::TempDir t("diskspecs-escape");
    fs::create_directories(t / "d");
    write(t / "secret", "root:x:0:0:" + std::string(2000, 's') + "\n" + std::string(1000, 't') + "{\n");
    disksim_copy(t / "d", "../secret");
    const std::string err = bad_input("import-disksim " + (t / "d/atlas10k.diskspecs") + " --out -");
    CHECK_THAT(err, StartsWith("blksim: " + (t / "d/atlas10k.diskspecs") + ":2: '../secret': the file must lie in the "
                                                                           "description's folder"));
    CHECK(err.find("root:x") == std::string::npos);
    fs::remove_all(t / "d");
    fs::create_directories(t / "d");
    disksim_copy(t / "d", "/dev/zero");
    CHECK_THAT(bad_input("import-disksim " + (t / "d/atlas10k.diskspecs") + " --out -"),
               Contains(":2: '/dev/zero': the file must lie in the description's folder"));

    // A file in the folder that is not a description: its first line, cut at 80 characters.
    fs::remove_all(t / "d");
    fs::create_directories(t / "d");
    fs::copy_file(t / "secret", t / "d/secret.model");
    disksim_copy(t / "d", "secret.model");
    const std::string shown = bad_input("import-disksim " + (t / "d/atlas10k.diskspecs") + " --out -");
    CHECK_THAT(shown, Contains("secret.model:1: block 'root:x:0:0:" + std::string(69, 's') + "...'"));
    CHECK(shown.size() < 300);
    // A block name is quoted by its start too.
    write(t / "d/long.diskspecs", "disksim_disk " + std::string(300, 'n') + "\n" + std::string(300, 'm') + " {\n}\n");
    CHECK(bad_input("import-disksim " + (t / "d/long.diskspecs") + " --out -") ==
          "blksim: " + (t / "d/long.diskspecs") + ":1: block 'disksim_disk " + std::string(67, 'n') +
              "...' has no 'Model' entry\n");
    // The fixture itself still imports.
    fs::remove_all(t / "d");
    fs::create_directories(t / "d");
    disksim_copy(t / "d", "atlas10k.model");
    CHECK(run_blksim("import-disksim " + (t / "d/atlas10k.diskspecs") + " --out -", false).status == 0);
}

TEST_CASE("validate-disk: idle times beyond the clock's range are bad input at their line", "[cli][input][disksim]") {
    clitest::TempDir t("idle-overflow");
    write(t / "one.trace", "R Hit 4583176 4 663.0 1e16\nR Miss 100 4 663.0 5\n");
    CHECK(bad_input("validate-disk " + (t / "one.trace") + " --device atlas10k") ==
          "blksim: " + (t / "one.trace") +
              ":1: field 6 (idle time) '1e16': the idle times up to this line add up to 1e+16 us; a trace may span at "
              "most 1e+15 us (31 years)\n");
    std::string many;
    for (int i = 0; i < 200; ++i)
        many += "R Miss " + std::to_string(i * 1000) + " 4 663.0 9000000000000\n";
    write(t / "many.trace", many);
    CHECK_THAT(bad_input("validate-disk " + (t / "many.trace") + " --device atlas10k"),
               Contains("many.trace:112: field 6 (idle time) '9000000000000': the idle times up to this line add up to "
                        "1.008e+15 us"));
}

TEST_CASE("a machine estimated beyond --mem-limit is refused before it is built", "[cli][input][mem]") {
    clitest::TempDir t("mem-limit");
    write(t / "big.fio", "[a]\nruntime=10ms\ntime_based\niodepth=65536\nnumjobs=4096\nioengine=libaio\n");
    // 65536 x 4096 io_units alone are 43 GB.
    const std::string big = bad_input("fio --device nullb -q --mem-limit 40G -- " + (t / "big.fio"));
    CHECK_THAT(big, StartsWith("blksim: nullb: needs about 4"));
    CHECK_THAT(big, Contains(" GiB, the limit is 40.0 GiB (--mem-limit to raise it)"));
    CHECK_THAT(bad_input("run -q " + kExample + " --mem-limit 1M"),
               StartsWith("blksim: " + kExample + ": needs about ") && Contains("MiB, the limit is 1.0 MiB"));
    CHECK(run_blksim("run -q " + kExample + " --set jobs.0.runtime=1ms --mem-limit 64M", false).status == 0);
    CHECK_THAT(bad_input("run -q " + kExample + " --mem-limit lots"),
               Contains("--mem-limit lots: not a size (allowed: a number with K, M, G or T, e.g. 16G)"));
    CHECK_THAT(bad_input("compare " + kExample + " --runs 2 --jobs 2 --mem-limit 4M"),
               Contains("compare: variant A: needs about"));
    CHECK_THAT(bad_input("compare " + kExample + " --runs 2 --jobs 2 --mem-limit 4M"), Contains("(2 runs at once)"));
    CHECK_THAT(bad_input("reproduce --reduced --only E2 --jobs 1 --mem-limit 1M"), Contains("needs about"));
}

TEST_CASE("a sweep of 10^9 points is refused before its points are listed", "[cli][input][mem]") {
    std::string v;
    for (int i = 1; i <= 1000; ++i)
        v += (i > 1 ? "," : "") + std::to_string(i);
    const std::string err = bad_input("sweep " + kExample + " --param jobs.0.iodepth=" + v + " --param jobs.0.numjobs=" +
                                      v + " --param seed=" + v + " --mem-limit 8G --csv /dev/null");
    CHECK_THAT(err, StartsWith("blksim: sweep: 1000000000 points: needs about ") &&
                        Contains(" GiB, the limit is 8.0 GiB (--mem-limit to raise it)"));
    // Within the limit, each point's machine still counts: iodepth 65536 x numjobs 4096.
    CHECK_THAT(bad_input("sweep " + kExample + " --set jobs.0.ioengine=libaio --set jobs.0.numjobs=4096 --param "
                         "jobs.0.iodepth=1,65536 --jobs 1 --mem-limit 8G --csv /dev/null"),
               Contains("--param jobs.0.iodepth=65536: " + kExample + ": needs about 4") &&
                   Contains("GiB, the limit is 8.0 GiB"));
}
