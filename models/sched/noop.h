// noop: the simplest policy the elevator contract allows, one FIFO for the whole queue.
// Requests are dispatched in the order they were inserted (a requeue or flush goes to the
// front), no bio is merged by the policy (the core's plug and software-queue merges still
// run) and no lock beyond the core's queue lock is modelled. Linux removed its noop
// elevator with the legacy block layer; "none" is blk-mq's equivalent. blksim keeps it as
// the example of adding a scheduler (docs/extending.md).
#pragma once

#include <boost/intrusive/list.hpp>

#include "models/sched/elevator.h"

namespace blksim::sched {

struct NoopTunables {};  // noop has no iosched/ attributes

class Noop final : public Elevator, public ElevatorAudit {
public:
    Noop() = default;
    ~Noop() override { fifo_.clear(); }
    std::string_view name() const override { return "noop"; }

    void insert_request(blkmq::Request* rq, bool at_head, sim::Time now) override;
    blkmq::Request* dispatch_request(uint32_t hctx_idx, sim::Time now) override;
    bool has_work(uint32_t /*hctx_idx*/) const override { return !fifo_.empty(); }
    ElvMerge bio_merge(uint32_t, const blkmq::Bio&, uint32_t, blkmq::Request**) override { return ElvMerge::NO_MERGE; }
    void request_merged(blkmq::Request*, ElvMerge) override {}
    // A request the core merged into another at insert time leaves the FIFO with it.
    void requests_merged(blkmq::Request* rq, blkmq::Request* next) override;
    // ElevatorAudit
    uint64_t queued() const override { return fifo_.size(); }
    std::string audit() const override;

private:
    using Fifo = boost::intrusive::list<
        blkmq::Request,
        boost::intrusive::member_hook<blkmq::Request, boost::intrusive::list_member_hook<>, &blkmq::Request::queuelist>,
        boost::intrusive::constant_time_size<true>>;
    Fifo fifo_;
};

}  // namespace blksim::sched
