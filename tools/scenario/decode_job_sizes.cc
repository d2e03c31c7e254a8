// A job's block sizes (bs, bsrange, bssplit, bs_unaligned, blockalign) and the region of
// the device it works on (offset, size).
#include <algorithm>

#include "tools/scenario/decode_job.h"

namespace blksim::scenario {

namespace {

constexpr std::string_view kDir[2] = {"read", "write"};

// fio's compatibility mode makes "4KiB" 4000 bytes; say so when that is the likely cause.
std::string kib_note(const Opt& v, units::KbBase kb_base) {
    const std::string t = text(v);
    if (kb_base != units::KbBase::B1024 || t.find_first_of("iI") == std::string::npos) return "";
    return " (with fio's default kb_base=1024, KiB/MiB mean 1000/1000^2 bytes: write 4k, or set kb_base=1000)";
}

// fio's bs, bsrange, bssplit (per direction), blocksize_unaligned, blockalign. Every size
// is checked as bs is; bsrange and bssplit set the smallest size (bs_read/bs_write, fio's
// min_bs) and the range of sizes, and win over bs, as in fio.
class BlockSizes {
public:
    BlockSizes(const JobInput& in, workload::JobConfig& j) : in_(in), j_(j), lbs_(logical_block_size(in.device)) {}

    void decode() {
        if (const Opt* v = in_.get("bs")) bs(*v);
        const Opt* range = in_.get("bsrange");
        const Opt* split = in_.get("bssplit");
        if (range && split)
            in_.rep().fail(split->ptr, "give either bsrange or bssplit, not both (" + in_.rep().describe(range->ptr) +
                                           " sets the range too)");
        if (range) bsrange(*range);
        if (split) bssplit(*split);
        if (const Opt* v = in_.get("bs_unaligned")) j_.bs_unaligned = boolean(*v);
        if (const Opt* v = in_.get("blockalign")) blockalign(*v);
    }

private:
    void check(const Opt& v, uint64_t bs, const std::string& what) const {
        if (bs < kMinBs || bs > kMaxBs) in_.rep().fail(v.ptr, what + " is out of range (allowed: 512 bytes .. 128 MiB)");
        if (bs % kMinBs != 0) in_.rep().fail(v.ptr, what + " is not a multiple of 512" + kib_note(v, in_.kb_base));
        if (j_.direct && bs % lbs_ != 0)
            in_.rep().fail(v.ptr, what + " is not a multiple of " + in_.device.name + "'s logical block size " +
                                      std::to_string(lbs_) + " (direct I/O needs that)");
    }

    static std::string sized(uint64_t bs, unsigned dir) {
        return "block size " + std::to_string(bs) + " (" + std::string(kDir[dir]) + ")";
    }

    void bs(const Opt& v) {
        const units::DdirSizes sizes =
            in_.parse_at(v, [&](const std::string& t) { return units::parse_ddir_sizes(t, in_.kb_base); });
        const auto one = [&](const std::optional<uint64_t>& size, uint64_t& out, unsigned dir) {
            if (!size) return;
            out = *size;
            check(v, out, "block size " + std::to_string(out) + (sizes.read == sizes.write ? "" : " (" + std::string(kDir[dir]) + ")"));
        };
        one(sizes.read, j_.bs_read, 0);
        one(sizes.write, j_.bs_write, 1);
        // sizes.trim: blksim has no trim workload; fio's third value is accepted and unused.
    }

    void bsrange(const Opt& range) {
        const units::DdirRanges r =
            in_.parse_at(range, [&](const std::string& t) { return units::parse_ddir_ranges(t, in_.kb_base); });
        const std::optional<units::SizeRange>* slots[2] = {&r.read, &r.write};
        for (unsigned dir = 0; dir < 2; ++dir) {
            if (!*slots[dir]) continue;
            const units::SizeRange x = **slots[dir];
            check(range, x.min, sized(x.min, dir));
            check(range, x.max, sized(x.max, dir));
            *min_bs(dir) = x.min;
            j_.bs_range[dir].max = x.max != x.min ? x.max : 0;
        }
    }

    void bssplit(const Opt& split) {
        const units::DdirBsSplit sp =
            in_.parse_at(split, [&](const std::string& t) { return units::parse_bssplit(t, in_.kb_base); });
        const std::optional<units::BsSplit>* slots[2] = {&sp.read, &sp.write};
        for (unsigned dir = 0; dir < 2; ++dir) {
            if (!*slots[dir]) continue;
            uint64_t lo = units::kMaxSize, hi = 0;
            for (const units::BsSplitEntry& e : **slots[dir]) {
                check(split, e.bs, sized(e.bs, dir));
                lo = std::min(lo, e.bs);
                hi = std::max(hi, e.bs);
                j_.bs_range[dir].split.push_back({e.bs, e.percent});
            }
            *min_bs(dir) = lo;
            j_.bs_range[dir].max = hi != lo ? hi : 0;
            if (hi == lo) j_.bs_range[dir].split.clear();  // one size: plain bs
        }
    }

    void blockalign(const Opt& v) {
        const units::DdirSizes a =
            in_.parse_at(v, [&](const std::string& t) { return units::parse_ddir_sizes(t, in_.kb_base); });
        const std::optional<uint64_t>* slots[2] = {&a.read, &a.write};
        for (unsigned dir = 0; dir < 2; ++dir) {
            if (!*slots[dir]) continue;
            check(v, **slots[dir], "blockalign " + std::to_string(**slots[dir]) + " (" + std::string(kDir[dir]) + ")");
            j_.blockalign[dir] = **slots[dir];
        }
    }

    // The smallest size of a direction (fio's min_bs).
    uint64_t* min_bs(unsigned dir) { return dir ? &j_.bs_write : &j_.bs_read; }

    const JobInput& in_;
    workload::JobConfig& j_;
    const uint64_t lbs_;
};

// bytes * percent / 100 without overflow (fio: real_file_size * percent / 100).
uint64_t percent_of(uint64_t bytes, uint32_t percent) { return bytes / 100 * percent + bytes % 100 * percent / 100; }

}  // namespace

void decode_block_sizes(const JobInput& in, workload::JobConfig& j) { BlockSizes(in, j).decode(); }

void decode_region(const JobInput& in, workload::JobConfig& j) {
    const dev::DeviceConfig& d = in.device;
    const uint64_t capacity = capacity_bytes(d);
    const uint64_t min_bs = std::min(j.bs_read, j.bs_write);
    const auto size_or_percent = [&](const Opt& v) {
        return in.parse_at(v, [&](const std::string& s) { return units::parse_size_or_percent(s, in.kb_base); });
    };
    if (const Opt* v = in.get("offset")) {
        const units::SizeOrPercent off = size_or_percent(*v);
        // fio aligns a percentage offset down to the block size.
        j.offset = off.is_percent ? percent_of(capacity, off.percent) / min_bs * min_bs : off.bytes;
        if (j.offset >= capacity)
            in.rep().fail(v->ptr, "offset " + std::to_string(j.offset) + " is beyond the end of " + d.name +
                                      " (" + std::to_string(capacity) + " bytes)");
    }
    const Opt* v = in.get("size");
    if (!v) return;  // 0: the device from offset on
    const units::SizeOrPercent size = size_or_percent(*v);
    j.size = size.is_percent ? percent_of(capacity, size.percent) : size.bytes;
    if (j.size == 0) in.rep().fail(v->ptr, "size must be larger than 0");
    if (j.size > capacity - j.offset)
        in.rep().fail(v->ptr, "offset + size (" + std::to_string(j.offset) + " + " + std::to_string(j.size) +
                                  " bytes) is beyond the end of " + d.name + " (" + std::to_string(capacity) + " bytes)");
    const uint64_t max_bs = std::max(j.max_bs(0), j.max_bs(1));
    if (j.size < max_bs)
        in.rep().fail(v->ptr, "size " + std::to_string(j.size) + " is smaller than the block size " + std::to_string(max_bs));
}

}  // namespace blksim::scenario
