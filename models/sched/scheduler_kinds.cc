#include "models/sched/scheduler_kinds.h"

namespace blksim::sched {

// "none": no elevator. Requests go from the software queues (or straight, when the hctx is
// idle) to the driver; blk-mq core's own path, so there is no policy to build.
namespace {
class NoElevatorKind final : public SchedulerKind {
public:
    using SchedulerKind::SchedulerKind;
    std::unique_ptr<Elevator> make(const std::any&, const ElevatorContext&) const override { return nullptr; }
};
constinit const NoElevatorKind kNone{"none", "no elevator: direct issue to the driver when the hctx is idle, else the software queues"};
}  // namespace

// Each policy's descriptor, defined in the policy's own file. A new policy adds its
// declaration here and its line to the list below.
const SchedulerKind& none_kind() { return kNone; }
const SchedulerKind& mq_deadline_kind();
const SchedulerKind& kyber_kind();
const SchedulerKind& bfq_kind();
const SchedulerKind& noop_kind();
const SchedulerKind& kernel_mq_deadline_kind();
const SchedulerKind& kernel_kyber_kind();
const SchedulerKind& kernel_bfq_kind();

std::span<const SchedulerKind* const> scheduler_kinds() {
    static const SchedulerKind* const kinds[] = {
        &none_kind(),
        &mq_deadline_kind(),
        &kyber_kind(),
        &bfq_kind(),
        &noop_kind(),
        &kernel_mq_deadline_kind(),
        &kernel_kyber_kind(),
        &kernel_bfq_kind(),
    };
    return kinds;
}

const SchedulerKind* find_scheduler_kind(std::string_view name) {
    for (const SchedulerKind* k : scheduler_kinds())
        if (k->name() == name)
            return k;
    return nullptr;
}

}  // namespace blksim::sched
