// The whole scenario document, section by section: the sections that others refer to come
// first (the host's CPUs, the devices, their queues), the jobs last.
#include "models/topology/topology.h"
#include "tools/scenario/decode.h"

namespace blksim::scenario {

namespace {

// /kernel and /checks: block layer switches and the run's self-checks.
void decode_kernel_and_checks(const DecodeState& st, topology::MachineConfig& m) {
    const json& doc = st.doc;
    if (doc.contains("kernel")) {
        const std::string f = doc["kernel"].value("tag_fairness", std::string("always"));
        m.tag_fairness = f == "on_shortage" ? blkmq::TagFairness::ON_SHORTAGE
                         : f == "off"       ? blkmq::TagFairness::OFF
                                            : blkmq::TagFairness::ALWAYS;
    }
    if (doc.contains("checks") && doc["checks"].contains("audit_interval")) {
        m.audit_interval = parse_time_at(doc["checks"]["audit_interval"], "/checks/audit_interval",
                                         units::TimeUnit::SEC, st.rep);
        if (m.audit_interval.count() != 0 && m.audit_interval.count() < 1000)
            st.rep.fail("/checks/audit_interval", "the audit interval must be 0 (off) or at least 1us");
    }
}

// The Boost.Graph topology check (dangling links, cycles, devices cut off from the host),
// its findings turned into the JSON path they concern.
void check_topology(const DecodeState& st, const topology::MachineConfig& m) {
    try {
        const topology::Topology topo(m);
    } catch (const topology::Topology::Error& e) {
        using K = topology::Topology::Ref::Kind;
        const auto& r = e.ref;
        const char* list = r.kind == K::CONTROLLER ? "/controllers" : r.kind == K::DEVICE ? "/devices" : "/queues";
        st.rep.fail(r.kind == K::QUEUE ? std::string(list) : child(child(list, r.index), r.field), e.what());
    }
}

}  // namespace

Scenario decode_scenario(const json& doc, const Reporter& rep, const LoadContext& ctx, const json& schema) {
    DecodeState st(doc, rep, ctx, schema);
    Scenario s;
    s.description = doc.value("description", std::string());
    s.machine.seed = doc.value("seed", uint64_t{0});
    decode_kernel_and_checks(st, s.machine);
    s.machine.host = decode_host(st, doc.at("host"), "/host");
    st.nr_cpus = s.machine.host.nr_cpus;
    if (doc.contains("controllers")) s.machine.controllers = decode_controllers(st, doc["controllers"], "/controllers");
    s.machine.devices = decode_devices(st, doc.at("devices"), "/devices");
    decode_queues(st);
    s.output = decode_output(st);
    s.machine.jobs = decode_jobs(st, s.output);
    decode_kernel_schedulers(st);
    for (const QueueState& q : st.queues) s.machine.queues.push_back(q.config);
    check_topology(st, s.machine);
    return s;
}

}  // namespace blksim::scenario
