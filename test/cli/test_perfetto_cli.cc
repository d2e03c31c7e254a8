// `--perfetto FILE`: the trace-event JSON follows the format's rules (what trace viewers
// need to load it), holds the tracks docs/timeline.md lists, and agrees with the run's
// report; its options refuse bad values.
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "test/cli/cli_fixture.h"

using namespace clitest;
using nlohmann::json;

namespace {

// What a trace holds, gathered while checking it.
struct TraceFacts {
    std::set<std::string> tracks;                  // thread names
    std::map<std::string, std::vector<double>> slice_us;  // slice name → durations (us)
    std::vector<json> request_args;                // args of each request on "requests" (its "Q2C_us" ...)
    std::size_t flows = 0, counters = 0;
    std::set<std::string> counter_names;
    json metadata;
    double first_begin = 1e300, last_begin = -1;  // of the cores' slices (us)
};

// The trace-event format's rules (Chrome's "Trace Event Format" document) that viewers rely
// on, checked on every event: B/E pairs on the same track and properly nested, timestamps
// never going back on a track (B, E, flow events) nor on a counter, flows that start (s),
// step (t) and finish (f) in time order with matching ids, each inside a slice open on its
// track, counters with numeric values.
TraceFacts check_trace(const std::string& text) {
    const json doc = json::parse(text);  // throws on bad JSON
    REQUIRE(doc.is_object());
    REQUIRE(doc.contains("traceEvents"));
    const json& events = doc["traceEvents"];
    REQUIRE(events.is_array());
    TraceFacts f;
    f.metadata = doc.value("metadata", json::object());
    using Track = std::pair<int64_t, int64_t>;
    struct Open {
        std::string name;
        double ts;
        json args;
    };
    std::map<Track, std::vector<Open>> open;
    std::map<Track, double> last_ts;
    std::map<std::pair<int64_t, std::string>, double> counter_ts;
    // Viewers order a flow's steps by time, whatever the file order (tracks come one by one).
    std::map<int64_t, std::vector<std::pair<double, char>>> flows;
    std::map<Track, std::string> names;
    for (const json& e : events) {
        REQUIRE(e.is_object());
        const std::string ph = e.at("ph").get<std::string>();
        const int64_t pid = e.at("pid").get<int64_t>();
        if (ph == "M") {
            if (e.at("name") == "thread_name")
                names[{pid, e.at("tid").get<int64_t>()}] = e.at("args").at("name").get<std::string>();
            continue;
        }
        REQUIRE(e.at("ts").is_number());
        const double ts = e.at("ts").get<double>();
        REQUIRE(ts >= 0);
        if (ph == "C") {
            ++f.counters;
            const std::string name = e.at("name").get<std::string>();
            f.counter_names.insert(name);
            REQUIRE(e.at("args").is_object());
            for (const auto& [k, v] : e.at("args").items())
                REQUIRE(v.is_number());
            auto [it, added] = counter_ts.try_emplace({pid, name}, ts);
            REQUIRE(ts >= it->second);
            it->second = ts;
            continue;
        }
        const Track t{pid, e.at("tid").get<int64_t>()};
        INFO("track " << pid << "/" << t.second << " at " << ts);
        auto [lt, added] = last_ts.try_emplace(t, ts);
        REQUIRE(ts >= lt->second);
        lt->second = ts;
        std::vector<Open>& stack = open[t];
        if (ph == "B") {
            if (pid == 1) {  // the cores
                f.first_begin = std::min(f.first_begin, ts);
                f.last_begin = std::max(f.last_begin, ts);
            }
            stack.push_back({e.at("name").get<std::string>(), ts, e.value("args", json())});
        } else if (ph == "E") {
            REQUIRE_FALSE(stack.empty());
            const Open& o = stack.back();
            f.slice_us[o.name].push_back(ts - o.ts);
            if (names[t].rfind("requests", 0) == 0 && o.args.is_object() && o.args.contains("Q2C_us") && o.name.size() > 2 &&
                o.name[1] == ' ')
                f.request_args.push_back(o.args);
            stack.pop_back();
        } else if (ph == "s" || ph == "t" || ph == "f") {
            ++f.flows;
            REQUIRE_FALSE(stack.empty());  // bound to the slice open on its track
            flows[e.at("id").get<int64_t>()].push_back({ts, ph[0]});
        } else {
            FAIL("unexpected phase " << ph);
        }
    }
    for (const auto& [t, stack] : open) {
        INFO("track " << t.first << "/" << t.second);
        REQUIRE(stack.empty());
    }
    for (const auto& [id, steps] : flows) {
        INFO("flow " << id);
        double s_ts = -1, f_ts = -1;
        int starts = 0, finishes = 0;
        for (const auto& [ts, ph] : steps) {
            if (ph == 's') {
                ++starts;
                s_ts = ts;
            } else if (ph == 'f') {
                ++finishes;
                f_ts = ts;
            }
        }
        REQUIRE(starts == 1);
        REQUIRE(finishes == 1);
        for (const auto& [ts, ph] : steps) {
            CHECK(ts >= s_ts);
            CHECK(ts <= f_ts);
        }
    }
    for (const auto& [t, name] : names)
        f.tracks.insert(name);
    return f;
}

bool has_track(const TraceFacts& f, const std::string& name) { return f.tracks.count(name) > 0; }

}  // namespace

TEST_CASE("perfetto: a teaching scenario's trace follows the trace-event rules and shows its tracks", "[cli][perfetto]") {
    TempDir tmp("perfetto-teach");
    const auto r = run_blksim("run " + source_path("scenarios/teaching/mq-deadline-writes-starved.json") +
                              " -q --output-format json --perfetto " + tmp / "t.json" +
                              " --perfetto-window 100ms..110ms");
    REQUIRE(r.status == 0);
    const TraceFacts f = check_trace(slurp(tmp / "t.json"));
    CHECK(has_track(f, "CPU 0"));
    CHECK(has_track(f, "requests"));
    CHECK(has_track(f, "hctx 0"));
    // Each request: a flow from Q to C, and stages that add up to its Q2C.
    REQUIRE(!f.request_args.empty());
    CHECK(f.flows >= 2 * f.request_args.size());
    CHECK(f.metadata.at("requests").get<std::size_t>() == f.request_args.size());
    for (const json& a : f.request_args) {
        const double sum = a.at("Q2G_us").get<double>() + a.at("G2I_us").get<double>() +
                           a.at("I2D_us").get<double>() + a.at("D2C_us").get<double>();
        CHECK(sum == Approx(a.at("Q2C_us").get<double>()).margin(0.002));
    }
    // mq-deadline holds the requests: most of a request's life is I2D, and the scheduler's
    // tags and what it holds are counted.
    CHECK(f.slice_us.count("I2D"));
    CHECK(f.counter_names.count("sched tags"));
    CHECK(f.counter_names.count("elevator holds"));
    // The CPUs' work: job steps, the elevator's lock sections, queue_rq, completions.
    for (const char* work : {"step", "lock", "queue_rq", "completion"})
        CHECK(f.slice_us.count(work));
    // The window: the cores' work that overlaps 100 ms..110 ms, so none starts at or after its
    // end, and none long before its start (a request is drawn whole if it overlaps).
    CHECK(f.last_begin < 110000);
    CHECK(f.first_begin > 99000);
}

TEST_CASE("perfetto: an HDD's trace shows the drive's seek, rotation and transfer", "[cli][perfetto]") {
    TempDir tmp("perfetto-hdd");
    const auto r = run_blksim("run " + source_path("scenarios/teaching/ncq-rpo-vs-fifo.json") + " -q --perfetto " +
                              tmp / "h.json" + " --perfetto-window 1s..1200ms");
    REQUIRE(r.status == 0);
    const TraceFacts f = check_trace(slurp(tmp / "h.json"));
    CHECK(has_track(f, "device"));
    for (const char* ph : {"seek", "rotation", "read"})
        REQUIRE(f.slice_us.count(ph));
    // A random read on a 7200 rpm drive: no rotational wait is longer than a revolution
    // (8.33 ms), and with NCQ many commands are held by the drive.
    for (const double us : f.slice_us.at("rotation"))
        CHECK(us <= 8334);
    CHECK(f.counter_names.count("at driver"));
    CHECK(f.metadata.at("window_ns") == json::array({1'000'000'000, 1'200'000'000}));
}

TEST_CASE("perfetto: every request of a run is in the trace, one in N with --perfetto-sample", "[cli][perfetto]") {
    TempDir tmp("perfetto-count");
    const std::string scen = "run " + source_path("scenarios/examples/nullblk-psync-qd1.json") +
                             " --set jobs.0.runtime=2ms --output-format json -q";
    const auto all = run_blksim(scen + " --perfetto " + tmp / "all.json", false);
    REQUIRE(all.status == 0);
    // psync at QD1 merges nothing: the requests are the I/Os fio counted.
    const json out = json::parse(all.out);
    const auto ios = out.at("jobs").at(0).at("read").at("total_ios").get<std::size_t>();
    REQUIRE(ios > 10);
    const TraceFacts f = check_trace(slurp(tmp / "all.json"));
    CHECK(f.request_args.size() == ios);
    const auto some = run_blksim(scen + " --perfetto " + tmp / "some.json" + " --perfetto-sample 4", false);
    REQUIRE(some.status == 0);
    const TraceFacts g = check_trace(slurp(tmp / "some.json"));
    CHECK(g.request_args.size() == (ios + 3) / 4);
    // The CPU-time breakdown adds up, core by core, to the busy and spin time blksim reports.
    const json cpu = f.metadata.at("cpu_time_ns");
    const json& cores = out.at("blksim").at("cpus");
    REQUIRE(cpu.size() == cores.size());
    for (std::size_t c = 0; c < cpu.size(); ++c) {
        int64_t total = 0;
        for (const auto& [k, v] : cpu[c].items())
            total += v.get<int64_t>();
        CHECK(total == cores[c].at("busy_ns").get<int64_t>());
        CHECK(cpu[c].at("spin").get<int64_t>() == cores[c].at("spin_ns").get<int64_t>());
    }
    CHECK(cpu[0].at("step").get<int64_t>() > 0);
    CHECK(cpu[0].at("queue_rq").get<int64_t>() > 0);
    // Same run, same file.
    const auto again = run_blksim(scen + " --perfetto " + tmp / "again.json", false);
    REQUIRE(again.status == 0);
    CHECK(slurp(tmp / "again.json") == slurp(tmp / "all.json"));
}

TEST_CASE("perfetto: bad bounds and unwritable files are refused with one message", "[cli][perfetto]") {
    TempDir tmp("perfetto-bad");
    const std::string scen = "run " + source_path("scenarios/examples/nullblk-psync-qd1.json") + " --set jobs.0.runtime=1ms -q";
    for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
             {"--perfetto-window 20ms..10ms", "--perfetto-window 20ms..10ms: the end must come after the start"},
             {"--perfetto-window 10ms", "--perfetto-window 10ms: not a span of time"},
             {"--perfetto-window 1parsec..2ms", "--perfetto-window 1parsec..2ms: 1parsec"},
             {"--perfetto-sample 0", "--perfetto-sample 0: not a whole number from 1"},
             {"--perfetto-sample -3", "--perfetto-sample -3: not a whole number from 1"},
             {"--perfetto-sample 2x", "--perfetto-sample 2x: not a whole number from 1"},
         }) {
        INFO(args);
        const auto r = run_blksim(scen + " --perfetto " + tmp / "x.json " + args);
        INFO(r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find(what) != std::string::npos);
        CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
        CHECK_FALSE(std::filesystem::exists(tmp / "x.json"));
    }
    const auto no_file = run_blksim(scen + " --perfetto-sample 2");
    CHECK(no_file.status == 2);
    CHECK(no_file.out.find("give one") != std::string::npos);
    const auto no_dir = run_blksim(scen + " --perfetto " + tmp / "missing/x.json");
    CHECK(no_dir.status == 2);
    CHECK(no_dir.out.find(tmp / "missing/x.json") != std::string::npos);
    const auto full = run_blksim(scen + " --perfetto /dev/full");
    INFO(full.out);
    CHECK(full.status != 0);
    CHECK(full.out.find("/dev/full") != std::string::npos);
}

TEST_CASE("report --timeline: one offline page with the run's figures and its trace", "[cli][perfetto]") {
    TempDir tmp("perfetto-page");
    const auto r = run_blksim("report " + source_path("scenarios/teaching/ncq-rpo-vs-fifo.json") +
                              " --timeline --perfetto-window 1s..1100ms -o " + tmp / "p.html");
    REQUIRE(r.status == 0);
    const std::string page = slurp(tmp / "p.html");
    // Self-contained: nothing loaded from anywhere.
    CHECK(page.find("<script src") == std::string::npos);
    CHECK(page.find("<link") == std::string::npos);
    CHECK(page.find("Where the CPUs' time went") != std::string::npos);
    CHECK(page.find("<th>group / direction</th>") != std::string::npos);
    // The trace it draws is the one --perfetto writes, and follows the same rules.
    const std::string open = "<script type=\"application/json\" id=\"tl-trace\">";
    const std::size_t at = page.find(open);
    REQUIRE(at != std::string::npos);
    const std::size_t end = page.find("</script>", at);
    std::string trace = page.substr(at + open.size(), end - at - open.size());
    for (std::size_t p; (p = trace.find("<\\/")) != std::string::npos;)
        trace.replace(p, 3, "</");
    const TraceFacts f = check_trace(trace);
    CHECK(has_track(f, "device"));
    CHECK(!f.request_args.empty());
    const auto same = run_blksim("run " + source_path("scenarios/teaching/ncq-rpo-vs-fifo.json") +
                                " -q --perfetto " + tmp / "t.json --perfetto-window 1s..1100ms");
    REQUIRE(same.status == 0);
    CHECK(json::parse(slurp(tmp / "t.json")).at("traceEvents") == json::parse(trace).at("traceEvents"));

    for (const char* bad : {" --timeline --interval 1ms", " --perfetto-sample 2", " --timeline --perfetto-sample 0"}) {
        INFO(bad);
        const auto b = run_blksim("report " + source_path("scenarios/teaching/ncq-rpo-vs-fifo.json") + std::string(bad) + " -o " +
                                  tmp / "bad.html");
        CHECK(b.status == 2);
        CHECK(std::count(b.out.begin(), b.out.end(), '\n') == 1);
        CHECK_FALSE(std::filesystem::exists(tmp / "bad.html"));
    }
}

TEST_CASE("perfetto: blksim fio --perfetto writes a trace that follows the rules, one request per I/O", "[cli][perfetto]") {
    TempDir tmp("perfetto-fio");
    const auto r = run_blksim("fio --device nvme --output-format json --perfetto " + tmp / "f.json" +
                                  " -- --name=r --rw=randread --bs=4k --iodepth=32 --ioengine=libaio --direct=1"
                                  " --runtime=2ms --time_based",
                              false);
    REQUIRE(r.status == 0);
    const json out = json::parse(r.out);
    const TraceFacts f = check_trace(slurp(tmp / "f.json"));
    CHECK(has_track(f, "requests"));
    CHECK(has_track(f, "hctx 0"));
    // Random 4 KiB reads do not merge: every I/O fio counted is one request drawn, and
    // each request is a flow Q → G → I → D → C.
    const auto ios = out.at("jobs").at(0).at("read").at("total_ios").get<std::size_t>();
    REQUIRE(ios > 100);
    CHECK(f.request_args.size() == ios);
    CHECK(f.flows >= 2 * f.request_args.size());
}

TEST_CASE("perfetto: the bfq and RAID read-ahead lessons' traces follow the rules", "[cli][perfetto][lessons]") {
    TempDir tmp("perfetto-lessons");
    // bfq switching from one reader's queue to the other's at the budget timeout (124 ms).
    const auto b = run_blksim("run " + source_path("scenarios/teaching/bfq-fairness-idling.json") + " -q --perfetto " +
                              tmp / "bfq.json" + " --perfetto-window 120ms..130ms");
    REQUIRE(b.status == 0);
    const TraceFacts fb = check_trace(slurp(tmp / "bfq.json"));
    CHECK(has_track(fb, "device"));
    CHECK(fb.slice_us.count("seek"));
    REQUIRE(!fb.request_args.empty());
    std::set<int64_t> pids;
    for (const json& a : fb.request_args)
        pids.insert(a.at("pid").get<int64_t>());
    CHECK(pids == std::set<int64_t>{1000, 1001});  // both readers' requests, one after the other
    // The RAID card: its requests and its per-disk counters.
    const auto ra = run_blksim("run " + source_path("scenarios/teaching/raid-read-ahead.json") + " -q --perfetto " +
                               tmp / "raid.json" + " --perfetto-window 0..20ms");
    REQUIRE(ra.status == 0);
    const TraceFacts fr = check_trace(slurp(tmp / "raid.json"));
    CHECK(!fr.request_args.empty());
    CHECK(std::any_of(fr.counter_names.begin(), fr.counter_names.end(),
                      [](const std::string& n) { return n.rfind("dev ", 0) == 0; }));
}

TEST_CASE("perfetto: the lock waiters counter is the cores spinning at each instant", "[cli][perfetto]") {
    TempDir tmp("perfetto-waiters");
    const std::string scen = "run " + source_path("scenarios/teaching/lock-collapse.json") +
                             " -q --perfetto-window 20ms..22ms --perfetto ";
    const auto r = run_blksim(scen + tmp / "dd.json");
    REQUIRE(r.status == 0);
    const std::string text = slurp(tmp / "dd.json");
    const TraceFacts f = check_trace(text);
    REQUIRE(f.slice_us.count("spin"));
    // The counter's integral over time is the spin slices' total: each spinning core is one
    // waiter for as long as it spins.
    double max_waiters = 0, integral_us = 0, prev_ts = 0, prev_value = 0;
    const json trace = json::parse(text);
    for (const json& e : trace.at("traceEvents")) {
        if (e.value("ph", "") != "C" || e.value("name", "") != "lock waiters")
            continue;
        const double ts = e.at("ts").get<double>(), v = e.at("args").at("value").get<double>();
        integral_us += prev_value * (ts - prev_ts);
        prev_ts = ts;
        prev_value = v;
        max_waiters = std::max(max_waiters, v);
    }
    CHECK(prev_value == 0);  // every spin ends
    double spin_us = 0;
    for (const double d : f.slice_us.at("spin"))
        spin_us += d;
    CHECK(integral_us == Approx(spin_us).epsilon(0.001));
    // Ten cores on one dd->lock: several wait at once, never more than the ten cores (all ten
    // during a hand-off, when the lock has left its last holder and not reached the next).
    CHECK(max_waiters >= 2);
    CHECK(max_waiters <= 10);

    // Without an elevator nobody spins: no such counter.
    const auto none = run_blksim(scen + tmp / "none.json --set queues.0.scheduler=none");
    REQUIRE(none.status == 0);
    CHECK(slurp(tmp / "none.json").find("\"lock waiters\"") == std::string::npos);
}
