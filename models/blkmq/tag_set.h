// struct blk_mq_tag_set: the driver's tag spaces, one BlkMqTags per hardware queue index,
// shared by every request_queue that uses the set. When a second queue joins, the set
// becomes BLK_MQ_F_TAG_QUEUE_SHARED and hctx_may_queue()'s fair share applies
// (docs/references.md §2.2–2.4).
// Reserved tags (set->reserved_tags) are carved out of queue_depth for the driver's own
// commands (BLK_MQ_REQ_RESERVED); normal I/O and the fair share see the rest. With host-wide
// tags (BLK_MQ_F_TAG_HCTX_SHARED: hisi_sas, megaraid_sas, smartpqi with host_tagset, null_blk
// shared_tag_bitmap) the set has one tag space for all its hctxs (set->shared_tags), and the
// fair share's user is the request queue rather than the hctx.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/blkmq/tags.h"

namespace blksim::blkmq {

// Which fair-share rule a shared tag set applies (docs/references.md §8b, E2).
enum class TagFairness : uint8_t {
    ALWAYS,       // mainline: each active user gets at most max(ceil(depth/users), 4)
    ON_SHORTAGE,  // Yu Kuai's patch: the cap applies only once a user failed to get a tag
    OFF,          // no cap (Bart Van Assche's proposal)
};

class TagSet {
public:
    TagSet(uint32_t nr_hw_queues, uint32_t queue_depth, TagFairness fairness, uint32_t reserved_tags = 0,
           bool hctx_shared = false)
        : queue_depth_(queue_depth), reserved_tags_(reserved_tags), nr_hw_queues_(nr_hw_queues),
          fairness_(fairness), hctx_shared_(hctx_shared) {
        for (uint32_t i = 0; i < (hctx_shared ? 1 : nr_hw_queues); ++i)
            tags_.push_back(std::make_unique<BlkMqTags>(queue_depth - reserved_tags));
    }
    TagSet(const TagSet&) = delete;
    TagSet& operator=(const TagSet&) = delete;

    uint32_t nr_hw_queues() const { return nr_hw_queues_; }
    uint32_t queue_depth() const { return queue_depth_; }
    uint32_t reserved_tags() const { return reserved_tags_; }
    TagFairness fairness() const { return fairness_; }
    BlkMqTags& tags(uint32_t hctx_idx) { return *tags_[hctx_shared_ ? 0 : hctx_idx]; }
    // blk_mq_is_shared_tags(): one tag space for every hctx of the set.
    bool hctx_shared() const { return hctx_shared_; }

    // blk_mq_add_queue_tag_set(): a second queue makes the set TAG_QUEUE_SHARED.
    void add_queue() { ++nr_queues_; }
    bool shared() const { return nr_queues_ > 1; }
    uint32_t nr_queues() const { return nr_queues_; }

private:
    uint32_t queue_depth_;
    uint32_t reserved_tags_;
    uint32_t nr_hw_queues_;
    TagFairness fairness_;
    bool hctx_shared_;
    uint32_t nr_queues_ = 0;
    std::vector<std::unique_ptr<BlkMqTags>> tags_;
};

}  // namespace blksim::blkmq
