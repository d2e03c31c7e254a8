// struct blk_mq_tag_set: the driver's tag spaces, one BlkMqTags per hardware queue index,
// shared by every request_queue that uses the set. When a second queue joins, the set
// becomes BLK_MQ_F_TAG_QUEUE_SHARED and hctx_may_queue()'s fair share applies (§2.2–2.4).
// Reserved tags (set->reserved_tags) are carved out of queue_depth for the driver's own
// commands (BLK_MQ_REQ_RESERVED); normal I/O and the fair share see the rest. Host-wide tags
// (BLK_MQ_F_TAG_HCTX_SHARED, one space for all hctxs) are not modelled (docs/model.md).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/blkmq/tags.h"

namespace blksim::blkmq {

// Which fair-share rule a shared tag set applies (reference §8b, E2).
enum class TagFairness : uint8_t {
    ALWAYS,       // mainline: each active user gets at most max(ceil(depth/users), 4)
    ON_SHORTAGE,  // Yu Kuai's patch: the cap applies only once a user failed to get a tag
    OFF,          // no cap (Bart Van Assche's proposal)
};

class TagSet {
public:
    TagSet(uint32_t nr_hw_queues, uint32_t queue_depth, TagFairness fairness, uint32_t reserved_tags = 0)
        : queue_depth_(queue_depth), reserved_tags_(reserved_tags), fairness_(fairness) {
        for (uint32_t i = 0; i < nr_hw_queues; ++i)
            tags_.push_back(std::make_unique<BlkMqTags>(queue_depth - reserved_tags));
    }
    TagSet(const TagSet&) = delete;
    TagSet& operator=(const TagSet&) = delete;

    uint32_t nr_hw_queues() const { return static_cast<uint32_t>(tags_.size()); }
    uint32_t queue_depth() const { return queue_depth_; }
    uint32_t reserved_tags() const { return reserved_tags_; }
    TagFairness fairness() const { return fairness_; }
    BlkMqTags& tags(uint32_t hctx_idx) { return *tags_[hctx_idx]; }

    // blk_mq_add_queue_tag_set(): a second queue makes the set TAG_QUEUE_SHARED.
    void add_queue() { ++nr_queues_; }
    bool shared() const { return nr_queues_ > 1; }

private:
    uint32_t queue_depth_;
    uint32_t reserved_tags_;
    TagFairness fairness_;
    uint32_t nr_queues_ = 0;
    std::vector<std::unique_ptr<BlkMqTags>> tags_;
};

}  // namespace blksim::blkmq
