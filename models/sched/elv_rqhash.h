// q->elevator->hash (block/elevator.c, elv_rqhash_*): the back-merge lookup of mq-deadline
// and bfq, requests keyed by their end sector in 1 << ELV_HASH_BITS buckets, each a list
// with the newest request first (hash_add adds at the head), so that find() returns the
// newest request ending at a sector, as elv_rqhash_find() does. A hash table and not a
// sorted tree, as in the kernel: add and del are a few pointer writes instead of a
// rebalancing, twice per request (insert, dispatch), and a lookup scans one short bucket.
// The hook unlinks itself (no bucket to find for a del), so the key may already have
// changed when a grown request is repositioned.
#pragma once

#include <array>
#include <cstdint>

#include <boost/intrusive/list.hpp>

#include "models/blkmq/request.h"

namespace blksim::sched {

class ElvRqHash {
public:
    static constexpr uint32_t ELV_HASH_BITS = 6;

    // elv_rqhash_add(): every blksim request reaching a scheduler is rq_mergeable().
    void add(blkmq::Request& rq) { buckets_[hash_min(rq.end_sector())].push_front(rq); }
    // elv_rqhash_del(), a no-op for a request not in the hash.
    static void del(blkmq::Request& rq) { rq.hash_node.unlink(); }
    // elv_rqhash_reposition(): after a back merge moved rq's end sector.
    void reposition(blkmq::Request& rq) {
        del(rq);
        add(rq);
    }
    // elv_rqhash_find(): the newest request ending at `offset`, or nullptr.
    blkmq::Request* find(uint64_t offset) {
        for (blkmq::Request& rq : buckets_[hash_min(offset)])
            if (rq.end_sector() == offset)
                return &rq;
        return nullptr;
    }

private:
    using Bucket = boost::intrusive::list<
        blkmq::Request,
        boost::intrusive::member_hook<blkmq::Request, blkmq::Request::HashHook, &blkmq::Request::hash_node>,
        boost::intrusive::constant_time_size<false>>;

    // hash_min() → hash_64(): the top bits of key * GOLDEN_RATIO_64.
    static uint32_t hash_min(uint64_t key) {
        return static_cast<uint32_t>((key * 0x61C8864680B583EBull) >> (64 - ELV_HASH_BITS));
    }

    std::array<Bucket, 1u << ELV_HASH_BITS> buckets_;
};

}  // namespace blksim::sched
