// The teaching scenarios (scenarios/teaching/, one lesson each in lessons/ there): each one
// shows one effect of the block layer, run through the blksim binary as a reader would run it,
// against the variant its lesson compares it with (a --set). Every check is the effect itself,
// with a margin: if the mechanism broke (plug merging, tag sleeps, writes_starved, RPO, the
// elevator lock, the RAID write-back cache, bfq's idling), the two runs would no longer differ
// this way. test_lessons_cli.cc checks the lessons' quoted figures exactly.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

// `blksim run` of a teaching scenario with JSON output; extra: more options (--set ...).
json run_teaching(const std::string& name, const std::string& extra = "") {
    const auto r = clitest::run_blksim("run " + clitest::source_path("scenarios/teaching/" + name + ".json") +
                                           " --output-format json " + extra,
                                       false);
    INFO(name << " " << extra << "\n" << r.out);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out, nullptr, false);
    REQUIRE(!j.is_discarded());
    return j;
}

// The job group's figures in one direction ("read" / "write"), the group named `job`.
const json& dir_of(const json& run, const std::string& job, const char* dir) {
    for (const json& j : run.at("jobs"))
        if (j.at("jobname") == job)
            return j.at(dir);
    FAIL("no job " << job);
    return run;
}

double cpu_spin_pct(const json& run) {
    double spin = 0;
    for (const json& c : run.at("blksim").at("cpus"))
        spin += c.at("spin_pct").get<double>();
    return spin / static_cast<double>(run.at("blksim").at("cpus").size());
}

}  // namespace

TEST_CASE("teaching: plugging merges sequential 4 KiB writes into large requests", "[cli][teaching]") {
    const json plugged = run_teaching("plug-merge");
    const json one = run_teaching("plug-merge", "--set jobs.0.iodepth_batch_submit=1");
    auto avg_request = [](const json& r) {
        const json& d = r.at("disk_util").at(0);
        return dir_of(r, "seqwrite", "write").at("io_bytes").get<double>() / d.at("write_ios").get<double>();
    };
    const json& d = plugged.at("disk_util").at(0);
    INFO("plugged: " << d.dump() << ", average request " << avg_request(plugged) << " B");
    CHECK(d.at("write_merges").get<double>() > 0);
    CHECK(avg_request(plugged) > 16 * 4096.0);   // 32 bios per io_submit: up to 128 KiB requests
    // One bio per plug: nothing merges, every request is one 4 KiB bio.
    CHECK(one.at("disk_util").at(0).at("write_merges") == 0);
    CHECK(avg_request(one) == Approx(4096.0));
}

TEST_CASE("teaching: more I/Os in flight than driver tags: submitters sleep for a tag", "[cli][teaching]") {
    const json few = run_teaching("tag-exhaustion");
    const json many = run_teaching("tag-exhaustion", "--set devices.0.params.hw_queue_depth=128");
    const json& q = few.at("blksim").at("queues").at(0);
    INFO(q.dump());
    CHECK(q.at("tag_depth") == 8);
    CHECK(q.at("tag_sleeps").get<double>() > 0);
    // The wait for a tag is Q2G: on average about a completion time (100 us) with 8 tags
    // for 128 I/Os, nothing with enough tags.
    const double q2g_few = q.at("stages_ns").at("q2g").at("mean").get<double>();
    const json& qm = many.at("blksim").at("queues").at(0);
    CHECK(q2g_few > 20'000);
    CHECK(qm.at("tag_sleeps") == 0);
    CHECK(qm.at("stages_ns").at("q2g").at("mean").get<double>() < 1'000);
    // 8 tags at 100 us each cap the IOPS at 80 k.
    const double iops_few = dir_of(few, "randread", "read").at("iops").get<double>();
    CHECK(iops_few < 80'000 * 1.01);
    CHECK(dir_of(many, "randread", "read").at("iops").get<double>() > 8 * iops_few);
}

TEST_CASE("teaching: mq-deadline's writes_starved decides how long writes wait behind reads", "[cli][teaching]") {
    const json dflt = run_teaching("mq-deadline-writes-starved");
    const json starved = run_teaching("mq-deadline-writes-starved", "--set 'queues.0.iosched={\"writes_starved\":16}'");
    const json& w2 = dir_of(dflt, "writer", "write");
    const json& w16 = dir_of(starved, "writer", "write");
    const double clat2 = w2.at("clat_ns").at("mean").get<double>();
    const double clat16 = w16.at("clat_ns").at("mean").get<double>();
    INFO("write clat mean: writes_starved=2 " << clat2 << " ns, 16 " << clat16 << " ns");
    CHECK(clat16 > 3 * clat2);
    CHECK(w16.at("iops").get<double>() < 0.5 * w2.at("iops").get<double>());
    // The readers get the service the writer lost.
    CHECK(dir_of(starved, "readers", "read").at("iops").get<double>() >
          dir_of(dflt, "readers", "read").at("iops").get<double>());
}

TEST_CASE("teaching: NCQ reordering (RPO) beats FIFO on a hard disk at QD32", "[cli][teaching]") {
    const json rpo = run_teaching("ncq-rpo-vs-fifo");
    const json fifo = run_teaching("ncq-rpo-vs-fifo", "--set devices.0.params.sched=fifo");
    const double a = dir_of(rpo, "randread", "read").at("iops").get<double>();
    const double b = dir_of(fifo, "randread", "read").at("iops").get<double>();
    INFO("RPO " << a << " IOPS, FIFO " << b);
    CHECK(a > 2 * b);
    // The gain is in positioning: RPO's mean rotational wait is well under half a revolution.
    const json& dev = rpo.at("blksim").at("devices").at(0);
    const json& devf = fifo.at("blksim").at("devices").at(0);
    CHECK(dev.at("rotation_ms_mean").get<double>() < 0.6 * devf.at("rotation_ms_mean").get<double>());
}

TEST_CASE("teaching: mq-deadline's lock collapses 10 NVMe submitters, none does not", "[cli][teaching]") {
    const json dl = run_teaching("lock-collapse");
    const json none = run_teaching("lock-collapse", "--set queues.0.scheduler=none");
    const double bw_dl = dir_of(dl, "randread", "read").at("bw_bytes").get<double>();
    const double bw_none = dir_of(none, "randread", "read").at("bw_bytes").get<double>();
    INFO("mq-deadline " << bw_dl << " B/s (spin " << cpu_spin_pct(dl) << " %), none " << bw_none << " B/s (spin "
                        << cpu_spin_pct(none) << " %)");
    CHECK(bw_dl < 0.6 * bw_none);
    CHECK(cpu_spin_pct(dl) > 50);
    CHECK(cpu_spin_pct(none) < 1);
    const json& lock = dl.at("blksim").at("queues").at(0).at("locks").at(0);
    // A third of the acquisitions find it taken, and the CPUs spend far longer waiting for it
    // (summed over them) than it is held.
    CHECK(lock.at("contended").get<double>() > 0.2 * lock.at("acquisitions").get<double>());
    CHECK(lock.at("wait_ns").get<double>() > 10 * lock.at("held_ns").get<double>());
}

TEST_CASE("teaching: a RAID card's write-back cache absorbs writes that write through waits for", "[cli][teaching]") {
    const json wb = run_teaching("raid-write-cache");
    const json wt = run_teaching("raid-write-cache", "--set devices.0.params.write_back=0");
    const json& a = dir_of(wb, "randwrite", "write");
    const json& b = dir_of(wt, "randwrite", "write");
    INFO("write back " << a.at("iops") << " IOPS, write through " << b.at("iops"));
    CHECK(a.at("iops").get<double>() > 10 * b.at("iops").get<double>());
    // Most writes complete from the cache, far below a disk access (several ms).
    CHECK(a.at("clat_ns").at("percentile").at("50.000000").get<double>() < 1e6);
    CHECK(b.at("clat_ns").at("percentile").at("50.000000").get<double>() > 5e6);
    const json& dev = wb.at("blksim").at("devices").at(0);
    CHECK(dev.at("lines_destaged").get<double>() > 0);   // written to the disks later
    CHECK(wt.at("blksim").at("devices").at(0).at("lines_destaged") == 0);
}

TEST_CASE("teaching: bfq idles for a sequential reader and shares the turns by weight", "[cli][teaching]") {
    const json idle = run_teaching("bfq-fairness-idling");
    const json no_idle = run_teaching("bfq-fairness-idling",
                                      "--set queues.0.iosched.slice_idle=0 --set devices.0.params.stream_read_ahead_kb=0");
    const json no_idle_ra = run_teaching("bfq-fairness-idling", "--set queues.0.iosched.slice_idle=0");
    const double a = dir_of(idle, "reader-a", "read").at("iops").get<double>();
    const double b = dir_of(idle, "reader-b", "read").at("iops").get<double>();
    INFO("weight 80: " << a << " IOPS, weight 10: " << b);
    // Every queue is reported under its own keys, so the JSON keeps both.
    const json* sec = nullptr;
    for (const json& d : idle.at("blksim").at("devices"))
        if (d.at("model") == "bfq")
            sec = &d;
    REQUIRE(sec != nullptr);
    INFO(sec->dump());
    CHECK(sec->at("q0_pid") == 1000);
    CHECK(sec->at("q1_pid") == 1001);
    CHECK(sec->at("q0_weight") == 80);
    CHECK(sec->at("q1_weight") == 10);
    CHECK(sec->at("q0_slots").get<double>() > 3 * sec->at("q1_slots").get<double>());
    CHECK(a > 5 * b);
    // Without idling, on a drive that prefetches only when its head is idle, the head goes
    // back and forth: both readers at the seek rate, tens of times below the idling reader's.
    const double c = dir_of(no_idle, "reader-a", "read").at("iops").get<double>();
    CHECK(c < a / 20);
    CHECK(dir_of(no_idle, "reader-b", "read").at("iops").get<double>() == Approx(c).epsilon(0.05));
    // The drive's own stream prefetch (a segment per stream) keeps both streaming instead,
    // at equal shares: the weights no longer show.
    const double d = dir_of(no_idle_ra, "reader-a", "read").at("iops").get<double>();
    CHECK(d > a / 4);
    CHECK(dir_of(no_idle_ra, "reader-b", "read").at("iops").get<double>() == Approx(d).epsilon(0.05));
}
