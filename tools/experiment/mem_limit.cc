#include "tools/experiment/mem_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "models/topology/memory_estimate.h"

namespace blksim::experiment {

uint64_t default_mem_limit() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    uint64_t limit = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) / 2 : uint64_t{8} << 30;
    rlimit as{};
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        limit = std::min<uint64_t>(limit, as.rlim_cur / 8 * 7);
    return limit;
}

std::optional<uint64_t> parse_mem_limit(std::string_view text) {
    if (text.empty())
        return default_mem_limit();
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end == text.data())
        return std::nullopt;
    std::string unit(end, text.data() + text.size());
    for (char& c : unit)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.ends_with("IB"))
        unit.resize(unit.size() - 2);
    else if (unit.size() > 1 && unit.ends_with("B"))
        unit.resize(unit.size() - 1);
    int shift = 0;
    if (unit.empty() || unit == "B")
        shift = 0;
    else if (unit == "K")
        shift = 10;
    else if (unit == "M")
        shift = 20;
    else if (unit == "G")
        shift = 30;
    else if (unit == "T")
        shift = 40;
    else
        return std::nullopt;
    if (n > (UINT64_MAX >> shift))
        return std::nullopt;
    return n << shift;
}

namespace {

std::string over(uint64_t need, uint64_t limit, uint64_t copies) {
    if (need <= limit)
        return {};
    // GiB, or MiB for a limit below 1 GiB; as many decimals as it takes for the two figures to
    // differ (at most 3).
    const int shift = limit >= (uint64_t{1} << 30) ? 30 : 20;
    const char* unit = shift == 30 ? "GiB" : "MiB";
    const auto in_unit = [&](uint64_t b) { return static_cast<double>(b) / double(uint64_t{1} << shift); };
    int decimals = 1;
    while (decimals < 3 &&
           fmt::format("{:.{}f}", in_unit(need), decimals) == fmt::format("{:.{}f}", in_unit(limit), decimals))
        ++decimals;
    const std::string at_once = copies > 1 ? fmt::format(" ({} runs at once)", copies) : "";
    return fmt::format("needs about {:.{}f} {}{}, the limit is {:.{}f} {} (--mem-limit to raise it{})", in_unit(need),
                       decimals, unit, at_once, in_unit(limit), decimals, unit, copies > 1 ? ", or fewer --jobs" : "");
}

}  // namespace

std::string over_mem_limit(uint64_t need, uint64_t limit) { return over(need, limit, 1); }

std::string over_mem_limit(const topology::MachineConfig& cfg, uint64_t copies, uint64_t limit) {
    copies = std::max<uint64_t>(copies, 1);
    const uint64_t one = topology::estimate_memory_bytes(cfg);
    return over(one > UINT64_MAX / copies ? UINT64_MAX : one * copies, limit, copies);
}

}  // namespace blksim::experiment
