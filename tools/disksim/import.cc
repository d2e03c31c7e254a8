#include "tools/disksim/import.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "models/device/hdd_layout.h"
#include "models/device/hdd_mechanics.h"
#include "tools/disksim/param_file.h"
#include "tools/input/input_file.h"

namespace blksim::disksim {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// DiskSim writes times in milliseconds; profiles keep them so ("_ms" keys), rounded to
// the nanosecond so that the JSON reads as the source did.
double ms(double v) { return std::round(v * 1e6) / 1e6; }

// A time in the scenario's syntax, exact to the nanosecond: "176us", "12742us", "30500ns".
std::string time_str(double milliseconds) {
    const long long ns = std::llround(milliseconds * 1e6);
    return ns % 1000 == 0 ? fmt::format("{}us", ns / 1000) : fmt::format("{}ns", ns);
}

std::string stem(const std::string& path) { return fs::path(path).stem().string(); }

// The file a "source FILE" / "FILE" value names (at `where`, the value's file:line),
// relative to the including file's folder. It must lie in the description's own folder (that
// of `diskspecs`), where DiskSim keeps a drive's .model and .seek files: an absolute path, a
// '..' or a symbolic link leaving the folder is refused, so that importing a description
// cannot read (and echo in its errors) any other file.
std::string sibling(const std::string& diskspecs, const std::string& from, const std::string& name,
                    const std::string& where) {
    std::error_code ec;
    fs::path root = fs::path(diskspecs).parent_path();
    if (root.empty())
        root = ".";
    root = fs::weakly_canonical(root, ec);
    const fs::path path = fs::path(from).parent_path() / name;
    const fs::path rel = fs::weakly_canonical(path, ec).lexically_relative(root);
    if (fs::path(name).is_absolute() || ec || rel.empty() || *rel.begin() == "..")
        throw DisksimError(fmt::format("{}: '{}': the file must lie in the description's folder {} (a path relative "
                                       "to it, without '..' or links leading out of it)",
                                       where, excerpt(name), root.string()));
    return path.string();
}

const ParamBlock& single_block(const std::vector<ParamBlock>& blocks, const std::string& file, const char* type) {
    for (const ParamBlock& b : blocks)
        if (b.type == type)
            return b;
    throw DisksimError(fmt::format("{}: no '{} NAME {{ ... }}' block", file, type));
}

const ParamBlock& sub_block(const ParamBlock& b, const std::string& key, const char* type) {
    const ParamValue& v = b.get(key);
    if (v.kind != ParamValue::Kind::BLOCK || v.block->type != type)
        throw DisksimError(fmt::format("{}:{}: '{}' must be a {} {{ ... }} block", b.file, v.line, excerpt(key), type));
    return *v.block;
}

// NAME.seek: "Seek distances measured: N", then N lines "distance,<tab>ms".
json read_seek_file(const std::string& path) {
    std::string why;
    const std::optional<std::string> text = input::read_file(path, input::kMaxTextFile, why);
    if (!text)
        throw DisksimError(fmt::format("{}: cannot open the seek table: {}", path, why));
    std::istringstream in(*text);
    std::string line;
    int ln = 0;
    json table = json::array();
    size_t expect = 0;
    uint64_t last = 0;
    while (std::getline(in, line)) {
        ++ln;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        if (ln == 1 || line.starts_with("Seek distances measured:")) {
            if (std::sscanf(line.c_str(), "Seek distances measured: %zu", &expect) != 1)
                throw DisksimError(fmt::format("{}:{}: expected 'Seek distances measured: N'", path, ln));
            continue;
        }
        unsigned long long d = 0;
        double t = 0;
        char extra = 0;
        if (std::sscanf(line.c_str(), " %llu , %lf %c", &d, &t, &extra) != 2 || d == 0 || !(t > 0) || d <= last)
            throw DisksimError(fmt::format(
                "{}:{}: expected 'distance, milliseconds' with distances ascending from 1 and times > 0, found '{}'",
                path, ln, excerpt(line)));
        last = d;
        table.push_back(json::array({d, ms(t)}));
    }
    if (table.empty() || (expect && table.size() != expect))
        throw DisksimError(fmt::format("{}: {} seek distances, the header says {}", path, table.size(), expect));
    return table;
}

std::vector<uint64_t> slips_of(const ParamBlock& zone) {
    std::vector<uint64_t> out;
    const ParamValue* v = zone.find("slips");
    if (!v)
        return out;
    if (v->kind != ParamValue::Kind::LIST)
        throw DisksimError(fmt::format("{}:{}: 'slips' must be a list [ ... ]", zone.file, v->line));
    for (const ParamValue& s : v->list) {
        const double d = param_number(s, zone.file, "slip");
        if (d < 0 || d != std::floor(d))
            throw DisksimError(fmt::format("{}:{}: slip '{}': a sector number (integer >= 0)", zone.file, s.line, excerpt(s.text)));
        out.push_back(static_cast<uint64_t>(d));
    }
    return out;
}

json import_layout(const ParamBlock& disk, const ParamBlock& lay, const std::string& file, uint32_t& remapped) {
    json L;
    L["surfaces"] = static_cast<uint32_t>(disk.num("Number of data surfaces", 1, 64));
    L["cylinders"] = static_cast<uint32_t>(disk.num("Number of cylinders", 2, 1e7));
    L["blocks"] = static_cast<uint64_t>(disk.num("Block count", 1, 1e15));
    const int mapping = static_cast<int>(lay.num("LBN-to-PBN mapping scheme", 0, 2));
    if (mapping == 2)
        throw DisksimError(fmt::format("{}:{}: LBN-to-PBN mapping scheme 2 (serpentine on even cylinders) is not supported: "
                                       "allowed 0 (normal) or 1 (cylinder switch on the same surface)",
                                       file, lay.get("LBN-to-PBN mapping scheme").line));
    L["serpentine"] = mapping == 1;
    const int sparing = static_cast<int>(lay.num("Sparing scheme used", 0, 10));
    if (sparing == 8) {
        L["sparing"] = "per_range";
    } else if (sparing == 0 || sparing == 7 || sparing == 9 || sparing == 10) {
        L["sparing"] = "zone_end";
    } else {
        throw DisksimError(fmt::format("{}:{}: sparing scheme {} is not supported: allowed 0 (none), 7 (at end), "
                                       "8 (per range), 9 and 10 (per zone)",
                                       file, lay.get("Sparing scheme used").line, sparing));
    }
    L["range_cyls"] = static_cast<uint32_t>(lay.num_or("Rangesize for sparing", 1, 1, 1e6));
    const ParamValue& zv = lay.get("Zones");
    if (zv.kind != ParamValue::Kind::LIST || zv.list.empty())
        throw DisksimError(fmt::format("{}:{}: 'Zones' must be a non-empty list of dm_layout_g1_zone blocks", file, zv.line));
    json zones = json::array();
    for (const ParamValue& z : zv.list) {
        if (z.kind != ParamValue::Kind::BLOCK || z.block->type != "dm_layout_g1_zone")
            throw DisksimError(fmt::format("{}:{}: a zone must be a dm_layout_g1_zone {{ ... }} block", file, z.line));
        const ParamBlock& b = *z.block;
        // Defects as (defect, spare it is remapped to) pairs. A defect remapped onto itself
        // changes nothing; others would move one LBA to a spare elsewhere: kept in place
        // (approximated, counted in the profile's source).
        if (const ParamValue* d = b.find("defects"); d && d->kind == ParamValue::Kind::LIST) {
            if (d->list.size() % 2)
                throw DisksimError(fmt::format("{}:{}: 'defects' must hold (defect, remap) pairs", file, d->line));
            for (size_t i = 0; i < d->list.size(); i += 2)
                remapped += param_number(d->list[i], file, "defect") != param_number(d->list[i + 1], file, "remap");
        }
        json zj;
        zj["cyls"] = json::array({static_cast<uint32_t>(b.num("First cylinder number", 0, 1e7)),
                                  static_cast<uint32_t>(b.num("Last cylinder number", 0, 1e7))});
        zj["spt"] = static_cast<uint32_t>(b.num("Blocks per track", 1, 1e5));
        zj["first_offset"] = b.num_or("Offset of first block", 0, 0, 1e5);
        zj["front_space"] = static_cast<uint32_t>(b.num_or("Empty space at zone front", 0, 0, 1e9));
        zj["track_skew"] = b.num("Skew for track switch", 0, 1e5);
        zj["cyl_skew"] = b.num("Skew for cylinder switch", 0, 1e5);
        zj["spares"] = static_cast<uint32_t>(b.num_or("Number of spares", 0, 0, 1e9));
        zj["slips"] = slips_of(b);
        zones.push_back(std::move(zj));
    }
    L["zones"] = std::move(zones);
    return L;
}

// The drive's dm_disk block: the disk block's `Model`, given inline or as "source FILE" (the
// dm_disk block in FILE, which `model_path` and `model_blocks` then hold).
const ParamBlock& disk_model(const ParamBlock& d, const std::string& diskspecs_path, std::string& model_path,
                             std::vector<ParamBlock>& model_blocks) {
    const ParamValue& mv = d.get("Model");
    if (mv.kind == ParamValue::Kind::BLOCK && mv.block->type == "dm_disk")
        return *mv.block;
    if (mv.kind == ParamValue::Kind::WORD && mv.text.starts_with("source ")) {
        model_path = sibling(diskspecs_path, diskspecs_path, mv.text.substr(7), d.where(mv));
        model_blocks = parse_param_file(model_path);
        return single_block(model_blocks, model_path, "dm_disk");
    }
    throw DisksimError(fmt::format("{}:{}: 'Model' must be 'source FILE.model' or a dm_disk block", diskspecs_path, mv.line));
}

// The controller's overheads and the segmented cache: the profile's cache_segments and
// write_cache (into `p`) and the measured description's part (into `m`).
void import_cache(const ParamBlock& d, json& p, json& m) {
    const double scale = d.num_or("Time scale for overheads", 1, 0, 100);
    const double per_req = d.num_or("Per-request overhead time", 0, 0, 100);
    const auto ovh = [&](const char* after_read, const char* after_write) {
        return json::array({ms(scale * (per_req + d.num(after_read, 0, 100))),
                            ms(scale * (per_req + d.num(after_write, 0, 100)))});
    };
    json o;
    o["read_hit"] = ovh("Read hit over. after read", "Read hit over. after write");
    o["read_miss"] = ovh("Read miss over. after read", "Read miss over. after write");
    o["write_hit"] = ovh("Write hit over. after read", "Write hit over. after write");
    o["write_miss"] = ovh("Write miss over. after read", "Write miss over. after write");
    m["overheads_ms"] = std::move(o);
    m["sector_xfer_ms"] = ms(d.num("Bulk sector transfer time", 0, 100));
    const uint32_t segs = static_cast<uint32_t>(d.num("Number of buffer segments", 1, 64));
    const uint32_t seg_size = static_cast<uint32_t>(d.num("Segment size (in blks)", 1, 1e7));
    p["cache_segments"] = segs;
    m["segment_sectors"] = seg_size;
    m["write_segments"] = static_cast<uint32_t>(d.num("Maximum number of write segments", 1, segs));
    const int enable_cache = static_cast<int>(d.num("Enable caching in buffer", 0, 2));
    const int contread = static_cast<int>(d.num("Buffer continuous read", 0, 4));
    const uint32_t max_ra = static_cast<uint32_t>(d.num("Maximum read-ahead (blks)", 0, seg_size));
    m["read_ahead_sectors"] = contread == 0 || enable_cache == 0 ? 0u : max_ra;
    m["read_ahead_any"] = contread != 0;
    m["read_ahead_track_end"] = contread == 4;
    m["read_ahead_over_request"] = d.num("Read-ahead over requested", -1, 1) == 1;
    m["read_hits_on_write_data"] = d.num("Allow read hits on write data", 0, 1) == 1;
    // Sectors passing before the requested ones are kept only by a drive that reads on
    // arrival (zero latency) and keeps free blocks: both flags.
    m["read_free_blocks"] = d.num("Read any free blocks", 0, 1) == 1 && d.num("Immediate buffer read", 0, 2) > 0;
    p["write_cache"] = d.num("Fast write level", 0, 2) > 0 ? 1 : 0;
}

}  // namespace

json import_diskspecs(const std::string& diskspecs_path) {
    const auto specs = parse_param_file(diskspecs_path);
    const ParamBlock& d = single_block(specs, diskspecs_path, "disksim_disk");
    std::string model_path;
    std::vector<ParamBlock> model_blocks;
    const ParamBlock* disk = &disk_model(d, diskspecs_path, model_path, model_blocks);
    const std::string mfile = disk->file;
    const ParamBlock& mech = sub_block(*disk, "Mechanical Model", "dm_mech_g1");
    const ParamBlock& lay = sub_block(*disk, "Layout Model", "dm_layout_g1");
    if (const std::string at = mech.word("Access time type"); at != "trackSwitchPlusRotation")
        throw DisksimError(fmt::format("{}:{}: access time type '{}' is not supported: allowed trackSwitchPlusRotation",
                                       mfile, mech.get("Access time type").line, excerpt(at)));
    if (const std::string st = mech.word("Seek type"); st != "extracted")
        throw DisksimError(fmt::format("{}:{}: seek type '{}' is not supported: allowed extracted (a measured seek table)",
                                       mfile, mech.get("Seek type").line, excerpt(st)));
    const std::string seek_path =
        sibling(diskspecs_path, mfile, mech.word("Full seek curve"), mech.where(mech.get("Full seek curve")));

    json p;
    json m;
    uint32_t remapped = 0;
    m["layout"] = import_layout(*disk, lay, mfile, remapped);
    m["layout"]["seek_table_ms"] = read_seek_file(seek_path);
    p["sectors"] = m["layout"]["blocks"];
    p["heads"] = m["layout"]["surfaces"];
    p["rpm"] = static_cast<uint32_t>(std::lround(mech.num("Rotation speed (in rpms)", 1000, 30000)));
    p["head_switch"] = time_str(mech.num("Head switch time", 0, 100));
    p["write_settle"] = time_str(mech.num("Add. write settling delay", 0, 100));
    p["seek_track_to_track"] = time_str(mech.num("Single cylinder seek time", 0, 100));
    p["seek_full_stroke"] = time_str(mech.num("Full strobe seek time", 0, 1000));
    // One request at a time, as the validation traces were measured; FIFO = DiskSim's
    // "Scheduling policy = 1" on a queue of one.
    p["queue_depth"] = static_cast<uint32_t>(d.num("Max queue length", 1, 32));
    p["sched"] = "fifo";
    p["sched_lookahead"] = 0;     // nothing queued to choose ahead from
    p["max_wait"] = 0;            // no aging bound: no queue
    p["ncq_prio_supported"] = 0;  // SCSI drives of 1997-2000: no NCQ priority
    import_cache(d, p, m);
    p["measured"] = std::move(m);

    const std::string name = stem(diskspecs_path);
    json prof;
    prof["name"] = name;
    prof["model"] = "hdd";
    prof["description"] = fmt::format("{} ({} rpm, {} surfaces, {} blocks), imported from DiskSim's validation description {}",
                                      disk->name.empty() ? d.name : disk->name, p["rpm"].get<uint32_t>(),
                                      p["heads"].get<uint32_t>(), p["sectors"].get<uint64_t>(), d.name);
    prof["source"] = fmt::format(
        "Imported by `blksim import-disksim {}` from DiskSim 4.0's validation suite (CMU PDL; Western Digital's "
        "64-bit fork): {} (controller, cache, overheads), {} (zones, skews, spares, slips, mechanics), {} (measured "
        "seek times). Every figure is the file's; what is mapped, approximated and ignored is in docs/disksim.md.{}",
        fs::path(diskspecs_path).filename().string(), fs::path(diskspecs_path).filename().string(),
        fs::path(model_path.empty() ? diskspecs_path : model_path).filename().string(),
        fs::path(seek_path).filename().string(),
        remapped ? fmt::format(" {} remapped defect(s) kept in place (not moved to their spare).", remapped) : "");
    prof["params"] = std::move(p);
    // The result must load: the same checks as a profile read back.
    (void)hdd_config_from_profile(prof, name + ".json (imported)");
    return prof;
}

}  // namespace blksim::disksim
