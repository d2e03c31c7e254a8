#include "models/report/output_format.h"

#include "models/report/fio_output.h"

namespace blksim::report {

namespace {

constexpr const OutputFormat* kFormats[] = {
    &kNormalFormat,
    &kJsonFormat,
    &kJsonPlusFormat,
    &kTerseFormat,
};

}  // namespace

std::span<const OutputFormat* const> output_formats() { return kFormats; }

const OutputFormat* find_output_format(std::string_view name) {
    for (const OutputFormat* f : kFormats)
        if (f->name == name)
            return f;
    return nullptr;
}

OutputFormats only(const OutputFormat& f) {
    OutputFormats set;
    set.slot[static_cast<std::size_t>(f.slot)] = &f;
    return set;
}

std::optional<OutputFormats> parse_output_formats(std::string_view s) {
    std::array<bool, std::size(kFormats)> asked{};
    // fio's output_format_parse(): strsep on ',', each name must be one fio knows.
    for (;;) {
        const std::size_t comma = s.find(',');
        const std::string_view name = s.substr(0, comma);
        std::size_t i = 0;
        while (i < asked.size() && kFormats[i]->name != name)
            ++i;
        if (i == asked.size())
            return std::nullopt;
        asked[i] = true;
        if (comma == std::string_view::npos)
            break;
        s.remove_prefix(comma + 1);
    }
    OutputFormats set;
    for (std::size_t i = 0; i < asked.size(); ++i)  // in list order: the later one of a slot stays
        if (asked[i])
            set.slot[static_cast<std::size_t>(kFormats[i]->slot)] = kFormats[i];
    return set;
}

std::string output_formats_allowed() {
    std::string out;
    for (const OutputFormat* f : kFormats)
        out += std::string(f->name) + ", ";
    return out + "or a comma-separated list of them such as normal,terse";
}

std::string format_report(const RunResult& r, const OutputFormats& formats, bool group_reporting) {
    std::string out;
    for (const OutputFormat* f : formats.slot)
        if (f && f->header)
            out += f->header(r);
    for (const OutputFormat* f : formats.slot)
        if (f)
            out += f->print(r, group_reporting);
    return out;
}

}  // namespace blksim::report
