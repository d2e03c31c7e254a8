#include "models/blkmq/tags.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

namespace blksim::blkmq {

BlkMqTags::BlkMqTags(uint32_t depth)
    : depth_(depth),
      wake_batch_(std::clamp<uint32_t>(depth / 8, 1, SBQ_WAKE_BATCH)),
      wait_cnt_(wake_batch_),
      free_(std::make_unique<uint32_t[]>(depth)),
      put_at_(std::make_unique<int64_t[]>(depth)),  // zero: free from the start
      static_rqs_(depth) {
    // Hand out low tags first, like sbitmap starting at word 0.
    for (uint32_t t = depth; t-- > 0;)
        free_[nr_free_++] = t;
    for (uint32_t t = 0; t < depth; ++t)
        static_rqs_[t].tag = static_cast<uint16_t>(t);
    replay_.reserve(depth);
}

// get() when the top free tag was put after `now`: the nearest one below that was put by
// then comes to the top (the others keep their order), or there is none.
uint32_t BlkMqTags::get_dated(sim::Time now) {
    for (uint32_t i = nr_free_ - 1; i-- > 0;) {
        if (put_at_[free_[i]] <= now.ns()) {
            std::swap(free_[i], free_[nr_free_ - 1]);
            return get(now);
        }
    }
    return NO_TAG;
}

sim::Time BlkMqTags::next_put_after(sim::Time now) const {
    int64_t next = now.ns();
    for (uint32_t i = 0; i < nr_free_; ++i) {
        const int64_t at = put_at_[free_[i]];
        if (at > now.ns() && (next == now.ns() || at < next))
            next = at;
    }
    return sim::Time::from_ns(next);
}

double BlkMqTags::mean_in_use(sim::Time now) const {
    const int64_t held = held_ns_ + static_cast<int64_t>(in_use()) * now.ns();
    return now.ns() > 0 ? static_cast<double>(held) / static_cast<double>(now.ns()) : 0.0;
}

void BlkMqTags::update_wake_batch(uint32_t users) {
    if (users == 0)
        return;
    const uint32_t depth = (depth_ + users - 1) / users;
    wake_batch_ = std::clamp<uint32_t>(depth / 8, 1, SBQ_WAKE_BATCH);
    wait_cnt_ = std::min(wait_cnt_, wake_batch_);
}

void BlkMqTags::set_min_shallow_depth(uint32_t min_shallow) {
    wake_batch_ = std::clamp<uint32_t>(std::min(depth_, min_shallow) / 8, 1, SBQ_WAKE_BATCH);
    wait_cnt_ = std::min(wait_cnt_, wake_batch_);
}

void BlkMqTags::put_violation(uint32_t tag) const {
    throw std::logic_error(fmt::format(
        "invariant violated: tag {} of a tag space of depth {} was freed while not in use "
        "(rule: every tag is freed exactly once after it was allocated)", tag, depth_));
}

// put() with sleepers waiting.
void BlkMqTags::put_wake(sim::Time now) {
    // sbitmap_queue_clear → sbq_wake_up: every wake_batch frees wake wake_batch sleepers.
    if (--wait_cnt_ == 0) {
        wait_cnt_ = wake_batch_;
        wake_up_nr(wake_batch_, now);
    }
}

bool BlkMqTags::prepare_to_wait(TagWaiter* w, sim::Time now) {
    if (w->waiting_)
        return false;
    w->waiting_ = true;
    waiters_.push_back(*w);
    ++nr_sleeps_;
    if (nr_waiters_++ > 0)
        return false;  // the puts since the first sleeper came were counted as they came
    // The first sleeper (ws_active): free tags put after `now` were put while nobody slept,
    // in the event order, but after it in time; they count from their instants. (Earlier
    // replays not yet due were of tags still free, so they are collected again here; their
    // events find them gone or take them once.)
    replay_.clear();
    for (uint32_t i = 0; i < nr_free_; ++i) {
        if (put_at_[free_[i]] > now.ns())
            replay_.push_back(put_at_[free_[i]]);
    }
    std::sort(replay_.begin(), replay_.end(), std::greater<>());
    return !replay_.empty();
}

void BlkMqTags::replay(uint64_t at_ns) {
    const auto at = static_cast<int64_t>(at_ns);
    while (!replay_.empty() && replay_.back() <= at) {
        const sim::Time t = sim::Time::from_ns(replay_.back());
        replay_.pop_back();
        if (nr_waiters_ == 0)
            wait_cnt_ = wake_batch_;
        else
            put_wake(t);
    }
}

void BlkMqTags::wake_up_nr(uint32_t nr, sim::Time now) {
    if (nr_waiters_ > 0)
        explain_(now, "tag wake-up: {} of {} sleepers ({}/{} tags in use, wake batch {})", std::min(nr, nr_waiters_),
                 nr_waiters_, in_use(), depth_, wake_batch_);
    while (nr-- > 0 && !waiters_.empty()) {
        TagWaiter* w = &waiters_.front();
        waiters_.pop_front();
        w->waiting_ = false;
        --nr_waiters_;
        w->tag_wakeup(now);
    }
}

}  // namespace blksim::blkmq
