// A job's block sizes (bs, bsrange, bssplit, bs_unaligned, blockalign) and the region of
// the device it works on (offset, size).
#include <algorithm>
#include <charconv>

#include "tools/scenario/decode_job.h"

namespace blksim::scenario {

namespace {

constexpr std::string_view kDir[3] = {"read", "write", "trim"};

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
        one(sizes.trim, j_.bs_trim, 2);
    }

    void bsrange(const Opt& range) {
        const units::DdirRanges r =
            in_.parse_at(range, [&](const std::string& t) { return units::parse_ddir_ranges(t, in_.kb_base); });
        const std::optional<units::SizeRange>* slots[3] = {&r.read, &r.write, &r.trim};
        for (unsigned dir = 0; dir < 3; ++dir) {
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
        const std::optional<units::BsSplit>* slots[3] = {&sp.read, &sp.write, &sp.trim};
        for (unsigned dir = 0; dir < 3; ++dir) {
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
        const std::optional<uint64_t>* slots[3] = {&a.read, &a.write, &a.trim};
        for (unsigned dir = 0; dir < 3; ++dir) {
            if (!*slots[dir]) continue;
            check(v, **slots[dir], "blockalign " + std::to_string(**slots[dir]) + " (" + std::string(kDir[dir]) + ")");
            j_.blockalign[dir] = **slots[dir];
        }
    }

    // The smallest size of a direction (fio's min_bs).
    uint64_t* min_bs(unsigned dir) { return dir == 2 ? &j_.bs_trim : dir ? &j_.bs_write : &j_.bs_read; }

    const JobInput& in_;
    workload::JobConfig& j_;
    const uint64_t lbs_;
};

// bytes * percent / 100 without overflow (fio: real_file_size * percent / 100).
uint64_t percent_of(uint64_t bytes, uint32_t percent) { return bytes / 100 * percent + bytes % 100 * percent / 100; }

}  // namespace

void decode_block_sizes(const JobInput& in, workload::JobConfig& j) { BlockSizes(in, j).decode(); }

namespace {

void decode_size(const JobInput& in, const Opt& v, workload::JobConfig& j, uint64_t capacity);
void check_zoned_abs(const JobInput& in, const workload::JobConfig& j, uint64_t region);

// fio offset_increment (a size, or a percentage of the device, then rounded up to the
// smallest block size as fio's get_start_offset() does).
void decode_offset_increment(const JobInput& in, workload::JobConfig& j, uint64_t capacity, uint64_t min_bs) {
    const Opt* v = in.get("offset_increment");
    if (!v) return;
    const units::SizeOrPercent inc =
        in.parse_at(*v, [&](const std::string& s) { return units::parse_size_or_percent(s, in.kb_base); });
    j.offset_increment = inc.is_percent ? percent_of(capacity, inc.percent) : inc.bytes;
    j.offset_increment_align = inc.is_percent;
    const uint64_t last = j.offset + (j.numjobs - 1) * j.offset_increment;
    if (j.numjobs > 1 && j.offset_increment && last + min_bs > capacity)
        in.rep().fail(v->ptr, "clone " + std::to_string(j.numjobs - 1) + " would start at byte " + std::to_string(last) +
                                  " (offset + " + std::to_string(j.numjobs - 1) + " x offset_increment), beyond the end of " +
                                  in.device.name + " (" + std::to_string(capacity) + " bytes)");
}

// fio random_distribution: random | zipf[:theta[:center]] | pareto[:h[:center]] |
// normal[:deviation %[:center]] (also gauss) | zoned:... | zoned_abs:... (options.c
// str_random_distribution_cb(); defaults theta 1.1, h 0.2, deviation 0).
void decode_random_distribution(const JobInput& in, workload::JobConfig& j) {
    const Opt* v = in.get("random_distribution");
    if (!v) return;
    using K = workload::RandomDistConfig::Kind;
    workload::RandomDistConfig& r = j.random_dist;
    const std::string t = text(*v);
    const size_t colon = t.find(':');
    const std::string name = t.substr(0, colon);
    const std::string rest = colon == std::string::npos ? "" : t.substr(colon + 1);
    const auto bad = [&](const std::string& why) {
        in.rep().fail(v->ptr, "random_distribution=" + t + ": " + why +
                                  " (allowed: random, zipf[:theta[:center]], pareto[:h[:center]], normal[:deviation[:center]], "
                                  "zoned:access%/size%:..., zoned_abs:access%/size:...)");
    };
    if (name == "zoned" || name == "zoned_abs") {
        r.kind = name == "zoned" ? K::ZONED : K::ZONED_ABS;
        const units::DdirZoneSplit z =
            in.parse_at(*v, [&](const std::string&) { return units::parse_zone_split(rest, r.kind == K::ZONED_ABS, in.kb_base); });
        for (unsigned d = 0; d < 2; ++d)
            for (const units::ZoneSplitEntry& e : z[d]) r.zones[d].push_back({e.access, e.size});
        return;
    }
    if (name == "random") return;
    if (name == "zipf") r.kind = K::ZIPF, r.value = 1.1;
    else if (name == "pareto") r.kind = K::PARETO, r.value = 0.2;
    else if (name == "normal" || name == "gauss") r.kind = K::NORMAL, r.value = 0.0;
    else bad("unknown distribution " + squote(name));
    const auto number = [&](const std::string& s) {
        double x = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
        if (s.empty() || ec != std::errc() || p != s.data() + s.size()) bad(squote(s) + " is not a number");
        return x;
    };
    if (!rest.empty()) {
        const size_t c2 = rest.find(':');
        r.value = number(rest.substr(0, c2));
        if (c2 != std::string::npos) {
            r.center = number(rest.substr(c2 + 1));
            if (r.center < 0.0 || r.center > 1.0) bad("the center must be from 0 to 1");
        }
    }
    if (r.kind == K::ZIPF && !(r.value > 0.0 && r.value != 1.0)) bad("zipf's theta must be above 0 and not 1");
    if (r.kind == K::PARETO && !(r.value > 0.0 && r.value < 1.0)) bad("pareto's h must be between 0 and 1");
    if (r.kind == K::NORMAL && !(r.value >= 0.0 && r.value < 100.0)) bad("normal's deviation must be from 0 to below 100 (%)");
}

}  // namespace

void decode_region(const JobInput& in, workload::JobConfig& j) {
    const dev::DeviceConfig& d = in.device;
    const uint64_t capacity = capacity_bytes(d);
    const uint64_t min_bs = std::min({j.bs_read, j.bs_write, j.bs_trim});  // fio's td_min_bs()
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
    decode_offset_increment(in, j, capacity, min_bs);
    if (const Opt* v = in.get("io_size")) {
        j.io_size = in.parse_at(*v, [&](const std::string& t) { return units::parse_size(t, in.kb_base); });
        if (j.io_size == 0) in.rep().fail(v->ptr, "io_size must be larger than 0");
    }
    decode_random_distribution(in, j);
    if (const Opt* v = in.get("size")) decode_size(in, *v, j, capacity);
    check_zoned_abs(in, j, j.size ? j.size : capacity - j.offset);
}

namespace {

void decode_size(const JobInput& in, const Opt& sz, workload::JobConfig& j, uint64_t capacity) {
    const Opt* v = &sz;
    const dev::DeviceConfig& d = in.device;
    const units::SizeOrPercent size = in.parse_at(*v, [&](const std::string& s) { return units::parse_size_or_percent(s, in.kb_base); });
    j.size = size.is_percent ? percent_of(capacity, size.percent) : size.bytes;
    if (j.size == 0) in.rep().fail(v->ptr, "size must be larger than 0");
    if (j.size > capacity - j.offset)
        in.rep().fail(v->ptr, "offset + size (" + std::to_string(j.offset) + " + " + std::to_string(j.size) +
                                  " bytes) is beyond the end of " + d.name + " (" + std::to_string(capacity) + " bytes)");
    const uint64_t max_bs = std::max(j.max_bs(0), j.max_bs(1));
    if (j.size < max_bs)
        in.rep().fail(v->ptr, "size " + std::to_string(j.size) + " is smaller than the block size " + std::to_string(max_bs));
    // The last clone's region, offset_increment's further on, must fit too.
    const uint64_t last_start = j.offset + (j.numjobs - 1) * j.offset_increment;
    if (j.offset_increment && last_start + j.size > capacity)
        in.rep().fail(in.get("offset_increment")->ptr,
                      "clone " + std::to_string(j.numjobs - 1) + "'s region (offset " + std::to_string(j.offset) + " + " +
                          std::to_string(j.numjobs - 1) + " x offset_increment " + std::to_string(j.offset_increment) +
                          ", size " + std::to_string(j.size) + ") is beyond the end of " + d.name + " (" +
                          std::to_string(capacity) + " bytes)");
}

// fio refuses zoned_abs zones that reach past the region ("zoned_abs sizes exceed file size").
void check_zoned_abs(const JobInput& in, const workload::JobConfig& j, uint64_t region) {
    const Opt* r = in.get("random_distribution");
    if (!r || j.random_dist.kind != workload::RandomDistConfig::Kind::ZONED_ABS) return;
    for (unsigned dir = 0; dir < 2; ++dir) {
        uint64_t total = 0;
        for (const auto& z : j.random_dist.zones[dir]) total += z.size;
        if (total > region)
            in.rep().fail(r->ptr, "zoned_abs zones add up to " + std::to_string(total) + " bytes, more than the job's region (" +
                                      std::to_string(region) + " bytes; fio: \"zoned_abs sizes exceed file size\")");
    }
}

}  // namespace

}  // namespace blksim::scenario
