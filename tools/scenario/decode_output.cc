// /output: fio's --output-format and group_reporting.
#include "models/report/fio_output.h"
#include "tools/scenario/decode.h"

namespace blksim::scenario {

OutputConfig decode_output(const DecodeState& st) {
    OutputConfig out;
    if (!st.doc.contains("output")) return out;
    const json& o = st.doc["output"];
    if (o.contains("format")) {
        // fio's --output-format: one format or a comma-separated list of them.
        const std::string f = o["format"].get<std::string>();
        const auto set = report::parse_output_formats(f);
        if (!set)
            st.rep.fail("/output/format", brief(o["format"]) + " is not a fio output format (allowed: " +
                                              std::string(report::OUTPUT_FORMATS_ALLOWED) + ")");
        const std::string first = f.substr(0, f.find(','));
        out.format = first == "json"    ? OutputConfig::Format::JSON
                     : first == "json+" ? OutputConfig::Format::JSON_PLUS
                     : first == "terse" ? OutputConfig::Format::TERSE
                                        : OutputConfig::Format::NORMAL;
        if (f.find(',') != std::string::npos) out.formats = f;
    }
    out.group_reporting = o.value("group_reporting", false);
    return out;
}

}  // namespace blksim::scenario
