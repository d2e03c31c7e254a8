// An imported HDD profile (tools/disksim/import.cc writes it) -> dev::HddConfig.
#include <cmath>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "models/device/hdd_config.h"
#include "models/device/hdd_layout.h"
#include "models/device/hdd_mechanics.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/input/input_file.h"
#include "tools/input/nesting.h"

namespace blksim::disksim {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Reads the values of one JSON object, naming file and JSON path in every error.
class Reader {
public:
    Reader(const json& obj, std::string file, std::string ptr) : o_(obj), file_(std::move(file)), ptr_(std::move(ptr)) {
        if (!o_.is_object())
            fail("", "must be an object");
    }
    [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
        throw DisksimError(fmt::format("{}: {}{}: {}", file_, ptr_, key.empty() ? "" : "/" + key, msg));
    }
    bool has(const std::string& k) const { return o_.contains(k); }
    const json& at(const std::string& k) const {
        if (!o_.contains(k))
            fail(k, "is missing");
        return o_.at(k);
    }
    double num(const std::string& k, double lo, double hi) const {
        const json& v = at(k);
        if (!v.is_number())
            fail(k, "must be a number");
        const double d = v.get<double>();
        if (!(d >= lo && d <= hi))
            fail(k, fmt::format("{} is out of range: allowed {} .. {}", d, lo, hi));
        return d;
    }
    uint64_t uint(const std::string& k, uint64_t lo, uint64_t hi) const {
        const json& v = at(k);
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
            fail(k, "must be a non-negative integer");
        const uint64_t d = v.get<uint64_t>();
        if (d < lo || d > hi)
            fail(k, fmt::format("{} is out of range: allowed {} .. {}", d, lo, hi));
        return d;
    }
    bool flag(const std::string& k) const {
        const json& v = at(k);
        if (v.is_boolean())
            return v.get<bool>();
        if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1))
            return v.get<int64_t>() == 1;
        fail(k, "must be 0, 1, true or false");
    }
    sim::Duration ms(const std::string& k, double hi = 1e4) const {
        return sim::Duration::ns(static_cast<int64_t>(std::llround(num(k, 0, hi) * 1e6)));
    }
    // A time as scenarios write it: integer nanoseconds or "<number><ns|us|ms|s>".
    sim::Duration time(const std::string& k) const {
        const json& v = at(k);
        if (v.is_number_integer() && v.get<int64_t>() >= 0)
            return sim::Duration::ns(v.get<int64_t>());
        if (!v.is_string())
            fail(k, "must be a time: integer nanoseconds or a string such as \"176us\"");
        const std::string s = v.get<std::string>();
        char* end = nullptr;
        const double x = std::strtod(s.c_str(), &end);
        const std::string unit = end ? std::string(end) : "";
        const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : -1;
        if (end == s.c_str() || scale < 0 || !(x >= 0) || x * scale > 1e12)
            fail(k, "'" + s + "' is not a time: allowed a number with ns, us, ms or s (e.g. \"176us\")");
        return sim::Duration::ns(static_cast<int64_t>(std::llround(x * scale)));
    }
    // Refuses keys not in `known`: a misspelt key must not be a silent default.
    void only(std::initializer_list<const char*> known) const {
        for (const auto& [k, v] : o_.items()) {
            bool ok = false;
            for (const char* n : known)
                ok |= k == n;
            if (!ok) {
                std::string list;
                for (const char* n : known)
                    list += (list.empty() ? "" : ", ") + std::string(n);
                fail(k, "unknown key (allowed: " + list + ")");
            }
        }
    }
    std::string ptr(const std::string& k) const { return ptr_ + "/" + k; }
    const std::string& file() const { return file_; }

private:
    const json& o_;
    std::string file_, ptr_;
};

std::shared_ptr<dev::HddLayoutSpec> layout_from(const Reader& r) {
    auto L = std::make_shared<dev::HddLayoutSpec>();
    r.only({"surfaces", "cylinders", "blocks", "sparing", "range_cyls", "serpentine", "zones", "seek_table_ms"});
    L->surfaces = static_cast<uint32_t>(r.uint("surfaces", 1, 64));
    L->cylinders = static_cast<uint32_t>(r.uint("cylinders", 2, 10'000'000));
    L->blocks = r.uint("blocks", 1, uint64_t{1} << 48);
    const json& sp = r.at("sparing");
    if (sp == "zone_end")
        L->sparing = dev::HddLayoutSpec::Sparing::AT_ZONE_END;
    else if (sp == "per_range")
        L->sparing = dev::HddLayoutSpec::Sparing::PER_RANGE;
    else
        r.fail("sparing", "must be \"zone_end\" or \"per_range\"");
    L->range_cyls = static_cast<uint32_t>(r.uint("range_cyls", 1, 1'000'000));
    L->serpentine = r.flag("serpentine");
    const json& zones = r.at("zones");
    if (!zones.is_array() || zones.empty())
        r.fail("zones", "must be a non-empty array of zones");
    for (size_t i = 0; i < zones.size(); ++i) {
        const Reader z(zones[i], r.file(), r.ptr("zones/" + std::to_string(i)));
        z.only({"cyls", "spt", "first_offset", "front_space", "track_skew", "cyl_skew", "spares", "slips"});
        dev::HddZoneSpec zs;
        const json& c = z.at("cyls");
        if (!c.is_array() || c.size() != 2 || !c[0].is_number_unsigned() || !c[1].is_number_unsigned())
            z.fail("cyls", "must be [first, last] cylinder numbers");
        zs.first_cyl = c[0].get<uint32_t>();
        zs.last_cyl = c[1].get<uint32_t>();
        zs.spt = static_cast<uint32_t>(z.uint("spt", 1, 100'000));
        zs.first_offset = z.num("first_offset", 0, 1e5);
        zs.front_space = static_cast<uint32_t>(z.uint("front_space", 0, 1'000'000'000));
        zs.track_skew = z.num("track_skew", 0, 1e5);
        zs.cyl_skew = z.num("cyl_skew", 0, 1e5);
        zs.spares = static_cast<uint32_t>(z.uint("spares", 0, 1'000'000'000));
        const json& sl = z.at("slips");
        if (!sl.is_array())
            z.fail("slips", "must be an array of sector numbers");
        for (const json& s : sl) {
            if (!s.is_number_unsigned())
                z.fail("slips", "must hold non-negative integers");
            zs.slips.push_back(s.get<uint64_t>());
        }
        L->zones.push_back(std::move(zs));
    }
    const json& st = r.at("seek_table_ms");
    if (!st.is_array() || st.empty())
        r.fail("seek_table_ms", "must be a non-empty array of [distance, ms]");
    for (size_t i = 0; i < st.size(); ++i) {
        const json& e = st[i];
        if (!e.is_array() || e.size() != 2 || !e[0].is_number_unsigned() || !e[1].is_number() || !(e[1].get<double>() > 0))
            r.fail("seek_table_ms/" + std::to_string(i), "must be [distance in cylinders, milliseconds > 0]");
        L->seek_table.emplace_back(e[0].get<uint32_t>(), static_cast<int64_t>(std::llround(e[1].get<double>() * 1e6)));
    }
    return L;
}

void overhead_pair(const Reader& o, const char* key, sim::Duration (&out)[2]) {
    const json& v = o.at(key);
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number() || v[0].get<double>() < 0 ||
        v[1].get<double>() < 0)
        o.fail(key, "must be [after a read, after a write] in ms, both >= 0");
    for (int i = 0; i < 2; ++i)
        out[i] = sim::Duration::ns(static_cast<int64_t>(std::llround(v[static_cast<size_t>(i)].get<double>() * 1e6)));
}

}  // namespace

dev::HddConfig hdd_config_from_profile(const json& profile, const std::string& file) {
    const Reader top(profile, file, "");
    if (!profile.contains("model") || profile["model"] != "hdd")
        top.fail("model", "must be \"hdd\"");
    const Reader p(top.at("params"), file, "/params");
    p.only({"sectors", "heads", "rpm", "head_switch", "write_settle", "seek_track_to_track", "seek_full_stroke",
            "queue_depth", "sched", "sched_lookahead", "max_wait", "ncq_prio_supported", "cache_segments",
            "write_cache", "measured"});
    dev::HddConfig c;
    c.size_bytes = p.uint("sectors", 1, uint64_t{1} << 48) * 512;
    c.heads = static_cast<uint32_t>(p.uint("heads", 1, 64));
    c.rpm = static_cast<uint32_t>(p.uint("rpm", 1000, 30000));
    c.head_switch = p.time("head_switch");
    c.write_settle = p.time("write_settle");
    c.seek_track_to_track = p.time("seek_track_to_track");
    c.seek_full_stroke = p.time("seek_full_stroke");
    c.queue_depth = static_cast<uint32_t>(p.uint("queue_depth", 1, 32));
    const json& sched = p.at("sched");
    if (sched == "fifo")
        c.sched = dev::HddConfig::Sched::FIFO;
    else if (sched == "rpo")
        c.sched = dev::HddConfig::Sched::RPO;
    else
        p.fail("sched", "must be \"fifo\" or \"rpo\"");
    c.cache_segments = static_cast<uint32_t>(p.uint("cache_segments", 1, 64));
    c.write_cache = p.flag("write_cache");
    c.sched_lookahead = static_cast<uint32_t>(p.uint("sched_lookahead", 0, 1));
    c.ncq_prio_supported = p.flag("ncq_prio_supported");
    c.max_wait = p.time("max_wait");
    apply_measured(p.at("measured"), file, "/params/measured", c);
    return c;
}

void apply_measured(const json& measured, const std::string& file, const std::string& ptr, dev::HddConfig& c) {
    const Reader m(measured, file, ptr);
    m.only({"layout", "overheads_ms", "sector_xfer_ms", "segment_sectors", "write_segments", "read_ahead_sectors",
            "read_ahead_any", "read_ahead_over_request", "read_ahead_track_end", "read_hits_on_write_data",
            "read_free_blocks"});
    c.layout = layout_from(Reader(m.at("layout"), file, m.ptr("layout")));
    const Reader o(m.at("overheads_ms"), file, m.ptr("overheads_ms"));
    o.only({"read_hit", "read_miss", "write_hit", "write_miss"});
    c.per_op_overheads = true;
    overhead_pair(o, "read_hit", c.ovh_read_hit);
    overhead_pair(o, "read_miss", c.ovh_read_miss);
    overhead_pair(o, "write_hit", c.ovh_write_hit);
    overhead_pair(o, "write_miss", c.ovh_write_miss);
    c.cmd_overhead = c.ovh_read_miss[0];
    c.sector_xfer = m.ms("sector_xfer_ms", 100);
    if (c.sector_xfer.count() <= 0)
        m.fail("sector_xfer_ms", "must be > 0");
    c.segment_sectors = static_cast<uint32_t>(m.uint("segment_sectors", 1, 1u << 24));
    c.write_segments = static_cast<uint32_t>(m.uint("write_segments", 1, c.cache_segments));
    const uint64_t ra = m.uint("read_ahead_sectors", 0, c.segment_sectors);
    c.read_ahead_kb = static_cast<uint32_t>((ra + 1) / 2);  // the model counts KiB; capped at the segment
    // DiskSim's prefetch stops when a request arrives, past its "Minimum read-ahead" (0 in
    // all six descriptions): no prefetch while other commands wait.
    c.stream_read_ahead_kb = 0;
    c.read_ahead_any = m.flag("read_ahead_any");
    c.read_ahead_over_request = m.flag("read_ahead_over_request");
    c.read_ahead_track_end = m.flag("read_ahead_track_end");
    c.read_hits_on_write_data = m.flag("read_hits_on_write_data");
    c.read_free_blocks = m.flag("read_free_blocks");
    // The model's buffer size only matters through the segments here; enough MiB for them.
    c.cache_mb = static_cast<uint32_t>(std::max<uint64_t>(1, (uint64_t{c.segment_sectors} * c.cache_segments + 2047) / 2048));
    if (c.layout->blocks * 512 != c.size_bytes)
        m.fail("layout", fmt::format("blocks {} differ from the drive's sectors {}", c.layout->blocks, c.size_bytes / 512));
    try {
        const dev::HddMechanics mech(c);
    } catch (const std::invalid_argument& e) {
        std::string msg = e.what();
        if (msg.starts_with("hdd: "))
            msg = msg.substr(5);
        m.fail("layout", msg);
    }
}

LoadedProfile load_hdd_profile(const std::string& name_or_path, const std::string& devices_dir) {
    LoadedProfile lp;
    const bool is_path = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
    lp.path = is_path ? name_or_path : (fs::path(devices_dir) / (name_or_path + ".json")).string();
    std::string why;
    const std::optional<std::string> text = input::read_file(lp.path, input::kMaxTextFile, why);
    if (!text)
        throw DisksimError(fmt::format("{}: cannot open the device profile: {}", lp.path, why));
    if (const auto deep = input::json_nesting_exceeded(*text))
        throw DisksimError(fmt::format("{}: {}", lp.path, input::nesting_message(*deep)));
    json j;
    try {
        j = json::parse(*text);
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a number beyond a double's range
        throw DisksimError(fmt::format("{}: not valid JSON: {}", lp.path, e.what()));
    }
    lp.cfg = hdd_config_from_profile(j, lp.path);
    lp.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : fs::path(lp.path).stem().string();
    return lp;
}

}  // namespace blksim::disksim
