// /host: the number of CPUs and the CPU time of each step of an I/O, from a cost profile
// (scenarios/cpu/<name>.json) and/or given inline, inline values winning.
#include <array>
#include <optional>

#include <fmt/format.h>

#include "tools/scenario/decode.h"
#include "tools/scenario/schema_check.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

namespace {

// CpuCosts fields by their JSON name. An optional one is 0 when neither the profile nor the
// scenario gives it (the driver-stack costs of ATA and SCSI devices: a profile made for
// null_blk or NVMe runs needs none).
struct CostField {
    std::string_view name;
    sim::Duration cpu::CpuCosts::*member;
    bool optional = false;
};
constexpr CostField kCostFields[] = {
    {"syscall", &cpu::CpuCosts::syscall},         {"io_prep", &cpu::CpuCosts::io_prep},
    {"bio_submit", &cpu::CpuCosts::bio_submit},   {"rq_alloc", &cpu::CpuCosts::rq_alloc},
    {"plug", &cpu::CpuCosts::plug},               {"queue_rq", &cpu::CpuCosts::queue_rq},
    {"irq", &cpu::CpuCosts::irq},                 {"softirq", &cpu::CpuCosts::softirq},
    {"complete_rq", &cpu::CpuCosts::complete_rq}, {"io_complete", &cpu::CpuCosts::io_complete},
    {"reap", &cpu::CpuCosts::reap},               {"context_switch", &cpu::CpuCosts::context_switch},
    {"elv_insert", &cpu::CpuCosts::elv_insert},   {"elv_dispatch", &cpu::CpuCosts::elv_dispatch},
    {"lock_handoff", &cpu::CpuCosts::lock_handoff}, {"bfq_insert", &cpu::CpuCosts::bfq_insert},
    {"bfq_dispatch", &cpu::CpuCosts::bfq_dispatch}, {"bfq_finish", &cpu::CpuCosts::bfq_finish},
    {"ata_queue_rq", &cpu::CpuCosts::ata_queue_rq, true}, {"ata_complete", &cpu::CpuCosts::ata_complete, true},
    {"scsi_queue_rq", &cpu::CpuCosts::scsi_queue_rq, true}, {"scsi_complete", &cpu::CpuCosts::scsi_complete, true},
};

constexpr sim::Duration kMaxCost = sim::Duration::ns(1'000'000'000);  // 1 s per step is a unit mistake

// Each cost as given so far (by the profile, then inline).
using CostSlots = std::array<std::optional<sim::Duration>, std::size(kCostFields)>;

// A per-step CPU time (a bare number is nanoseconds), refused above kMaxCost.
sim::Duration read_cost(const json& v, const std::string& at, const Reporter& rep, const char* what) {
    const sim::Duration d = parse_time_at(v, at, units::TimeUnit::NSEC, rep);
    if (d > kMaxCost) rep.fail(at, std::string(what) + " above 1s is surely a unit mistake (a bare number is nanoseconds)");
    return d;
}

void read_costs(const json& obj, const std::string& ptr, const Reporter& rep, CostSlots& costs) {
    for (size_t i = 0; i < costs.size(); ++i) {
        const std::string name(kCostFields[i].name);
        if (!obj.contains(name)) continue;
        costs[i] = read_cost(obj[name], child(ptr, name), rep, "a CPU cost");
    }
}

// host.vcpu_preemption (or a profile's): classes of the host's stalls of each vCPU. A stall
// of 0 ns is no stall; stalls taking half a vCPU's time or more describe a host too busy to
// model (and a value in the wrong unit, most likely).
std::vector<cpu::VcpuStall> read_vcpu_preemption(const json& arr, const std::string& ptr, const Reporter& rep) {
    std::vector<cpu::VcpuStall> out;
    double share = 0;
    for (size_t i = 0; i < arr.size(); ++i) {
        const std::string at = child(ptr, std::to_string(i));
        cpu::VcpuStall c;
        c.per_s = arr[i].at("per_s").get<double>();
        c.mean = read_cost(arr[i].at("mean"), child(at, "mean"), rep, "a stall's mean");
        if (c.mean <= sim::Duration()) rep.fail(child(at, "mean"), "a stall's mean must be above 0");
        share += c.per_s * c.mean.seconds();
        out.push_back(c);
    }
    if (share >= 0.5)
        rep.fail(ptr, "the stalls would take " + fmt::format("{:.3g}", share) +
                          " of every second a vCPU runs (per_s x mean, summed); allowed: under 0.5");
    return out;
}

// Fills name and costs from the profile; returns the profile's cpus.
uint32_t load_profile(const DecodeState& st, const std::string& name, const std::string& ptr, cpu::HostConfig& h,
                      CostSlots& costs) {
    const fs::path path = profile_path(st.ctx, name, "cpu");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        std::string msg = "cost profile " + squote(name) + " not found (no file " + path.string() + ")";
        if (const std::string avail = join(profile_names(fs::path(st.ctx.base_dir) / "cpu")); !avail.empty())
            msg += "; available: " + avail;
        st.rep.fail(ptr, msg);
    }
    const Reporter prep(path.string());
    const json profile = parse_json(read_text_file(path, prep, "cost profile"), prep);
    SchemaChecker(definition_schema(st.schema, "cost_profile_file"), path.string()).check(profile, prep);

    h.cost_profile = profile.at("name").get<std::string>();
    if (profile.contains("shared_llc")) h.shared_llc = profile["shared_llc"].get<bool>();
    if (profile.contains("run_to_parity")) h.run_to_parity = profile["run_to_parity"].get<bool>();
    if (profile.contains("vcpu_preemption"))
        h.vcpu_preemption = read_vcpu_preemption(profile["vcpu_preemption"], "/vcpu_preemption", prep);
    read_costs(profile.at("costs"), "/costs", prep, costs);
    return profile.at("cpus").get<uint32_t>();
}

}  // namespace

cpu::HostConfig decode_host(const DecodeState& st, const json& host, const std::string& ptr) {
    cpu::HostConfig h;
    CostSlots costs;
    std::optional<uint32_t> profile_cpus;
    if (host.contains("cost_profile")) {
        profile_cpus = load_profile(st, host["cost_profile"].get<std::string>(), child(ptr, "cost_profile"), h, costs);
    } else {
        h.cost_profile = "inline";
    }
    if (host.contains("costs")) read_costs(host["costs"], child(ptr, "costs"), st.rep, costs);

    if (host.contains("submit_bio_plug")) h.submit_bio_plug = host["submit_bio_plug"].get<bool>();
    if (host.contains("shared_llc")) h.shared_llc = host["shared_llc"].get<bool>();
    if (host.contains("run_to_parity")) h.run_to_parity = host["run_to_parity"].get<bool>();
    if (host.contains("os_jitter")) h.os_jitter = host["os_jitter"].get<bool>();
    if (host.contains("vcpu_preemption"))
        h.vcpu_preemption = read_vcpu_preemption(host["vcpu_preemption"], child(ptr, "vcpu_preemption"), st.rep);
    if (host.contains("os_noise"))
        h.os_noise = read_cost(host["os_noise"], child(ptr, "os_noise"), st.rep, "an OS noise mean");
    if (host.contains("cpus")) h.nr_cpus = host["cpus"].get<uint32_t>();
    else if (profile_cpus) h.nr_cpus = *profile_cpus;
    else st.rep.fail(ptr, "missing key 'cpus' (needed when no cost_profile gives it)");

    std::vector<std::string> missing;
    for (size_t i = 0; i < costs.size(); ++i) {
        if (costs[i]) h.costs.*kCostFields[i].member = *costs[i];
        else if (!kCostFields[i].optional) missing.emplace_back(kCostFields[i].name);
    }
    if (!missing.empty())
        st.rep.fail(child(ptr, "costs"), "without a cost_profile every cost must be given; missing: " + join(missing));
    return h;
}

}  // namespace blksim::scenario
