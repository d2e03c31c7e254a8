#include "models/kind/param.h"

#include <fmt/format.h>

namespace blksim::kind {

std::string duration_text(sim::Duration d) {
    const int64_t ns = d.count();
    if (ns == 0) return "0";
    if (ns % 1'000'000'000 == 0) return fmt::format("{}s", ns / 1'000'000'000);
    if (ns % 1'000'000 == 0) return fmt::format("{}ms", ns / 1'000'000);
    if (ns % 1'000 == 0) return fmt::format("{}us", ns / 1'000);
    return fmt::format("{}ns", ns);
}

std::string number_text(double v) { return fmt::format("{}", v); }

std::string help_text(const ParamInfo& p, const std::string& default_text) {
    std::string value = default_text;
    // Prose writes a time with a space ("Default 80 us"); the default column and a scenario
    // write it without ("80us").
    if (p.type == ParamType::TIME)
        if (const auto unit = value.find_first_not_of("0123456789"); unit != 0 && unit != std::string::npos)
            value.insert(unit, " ");
    std::string h(p.help);
    constexpr std::string_view kSlot = "{default}";
    if (const auto at = h.find(kSlot); at != std::string::npos)
        h.replace(at, kSlot.size(), value);
    return h;
}

std::string first_sentence(std::string_view text) {
    const auto end = text.find(". ");
    return std::string(end == std::string_view::npos ? text : text.substr(0, end + 1));
}

Problem check_irq_cpu(uint32_t cpu, uint32_t nr_cpus) {
    if (cpu < nr_cpus) return {};
    return {"irq_cpu", fmt::format("CPU {} does not exist: the host has {} CPU{}", cpu, nr_cpus, nr_cpus == 1 ? "" : "s")};
}

}  // namespace blksim::kind
