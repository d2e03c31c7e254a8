// kyber's debugfs (block/kyber-iosched.c: kyber_queue_debugfs_attrs and
// kyber_hctx_debugfs_attrs), for the state dump of a stalled or broken run. The token
// pools are counters here, so sbitmap_queue_show's bitmap becomes depth / busy / waiters.
#include "models/sched/kyber.h"

#include <fmt/format.h>

namespace blksim::sched {

namespace {
constexpr const char* kDomain[KYBER_NUM_DOMAINS] = {"read", "write", "discard", "other"};
}  // namespace

std::string Kyber::debugfs_show(sim::Time now) const {
    (void)now;
    std::string out;
    auto to = std::back_inserter(out);
    for (uint32_t d = 0; d < KYBER_NUM_DOMAINS; ++d) {
        const DomainTokens& dt = domain_tokens_[d];
        fmt::format_to(to, "{}_tokens: depth={} busy={} wake_batch={} waiters={}\n", kDomain[d], dt.depth, dt.in_use,
                       dt.wake_batch, dt.waiters.size());
    }
    for (uint32_t h = 0; h < nr_hw_queues_; ++h) {
        const KyberHctxData& khd = khds_[h];
        for (uint32_t d = 0; d < KYBER_NUM_DOMAINS; ++d) {
            std::size_t in_ctxs = 0;
            for (const uint32_t cpu : khd.ctxs)
                in_ctxs += kcqs_[cpu].rq_list[d].size();
            fmt::format_to(to, "hctx{}/{}_rqs: {} request(s), {} in the ctxs{}\n", h, kDomain[d], khd.rqs[d].size(),
                           in_ctxs, khd.waiting[d] ? ", waiting for a token" : "");
        }
        fmt::format_to(to, "hctx{}/cur_domain: {}\nhctx{}/batching: {}\n", h, kDomain[khd.cur_domain], h,
                       khd.batching);
    }
    return out;
}

void Kyber::figures(std::vector<std::pair<std::string, double>>& out) const {
    for (const KyberDomain d : {KYBER_READ, KYBER_WRITE}) {
        const KyberDomainStats& s = stats_[d];
        if (s.inserted == 0)
            continue;
        const std::string k = fmt::format("kyber_{}.", kDomain[d]);
        out.emplace_back(k + "depth_end", domain_tokens_[d].depth);
        out.emplace_back(k + "depth_min", s.min_depth);
        out.emplace_back(k + "resizes", static_cast<double>(s.shrinks + s.grows));
        out.emplace_back(k + "throttled", static_cast<double>(s.throttled));
        out.emplace_back(k + "tokens_max", s.max_in_use);
        out.emplace_back(k + "p99_bucket", domain_p99_[d]);
    }
}

}  // namespace blksim::sched
