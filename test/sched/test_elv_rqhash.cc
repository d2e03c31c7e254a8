// sched::ElvRqHash (elv_rqhash) against the definition it must keep: find(s) is the request
// added (or repositioned) most recently among those in the hash that end at s.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/sched/elv_rqhash.h"
#include "sim/random.h"

using namespace blksim;

namespace {

// The reference: requests in the order they entered the hash, oldest first.
blkmq::Request* newest_ending_at(const std::vector<blkmq::Request*>& order, uint64_t s) {
    for (auto it = order.rbegin(); it != order.rend(); ++it)
        if ((*it)->end_sector() == s)
            return *it;
    return nullptr;
}

}  // namespace

TEST_CASE("elv_rqhash finds the newest request ending at a sector, as an insertion-ordered list does",
          "[elv_rqhash]") {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        sim::Rng rng(seed, "elv_rqhash");
        std::vector<blkmq::Request> rqs(96);
        std::vector<blkmq::Request*> order;
        sched::ElvRqHash hash;
        // Few distinct end sectors, so that keys repeat and buckets hold several keys.
        for (int op = 0; op < 4000; ++op) {
            blkmq::Request& rq = rqs[rng.below(rqs.size())];
            switch (rng.below(4)) {
            case 0:  // add (if out) with a new range
                if (!rq.hash_node.is_linked()) {
                    rq.sector = rng.below(200);
                    rq.nr_sectors = static_cast<uint32_t>(1 + rng.below(8));
                    hash.add(rq);
                    order.push_back(&rq);
                }
                break;
            case 1:  // del
                sched::ElvRqHash::del(rq);
                std::erase(order, &rq);
                break;
            case 2:  // a back merge grew it: reposition
                if (rq.hash_node.is_linked()) {
                    rq.nr_sectors += static_cast<uint32_t>(1 + rng.below(8));
                    hash.reposition(rq);
                    std::erase(order, &rq);
                    order.push_back(&rq);
                }
                break;
            default: {
                const uint64_t s = rng.below(220);
                REQUIRE(hash.find(s) == newest_ending_at(order, s));
            }
            }
        }
        for (blkmq::Request& rq : rqs)
            CHECK(rq.hash_node.is_linked() == (std::find(order.begin(), order.end(), &rq) != order.end()));
    }
}
