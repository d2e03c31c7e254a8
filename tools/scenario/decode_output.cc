// /output: fio's --output-format and group_reporting.
#include "models/report/output_format.h"
#include "tools/scenario/decode.h"

namespace blksim::scenario {

OutputConfig decode_output(const DecodeState& st) {
    OutputConfig out;
    if (!st.doc.contains("output")) return out;
    const json& o = st.doc["output"];
    if (o.contains("format")) {
        // fio's --output-format: one format or a comma-separated list of them.
        const std::string f = o["format"].get<std::string>();
        if (!report::parse_output_formats(f))
            st.rep.fail("/output/format", brief(o["format"]) + " is not a fio output format (allowed: " +
                                              report::output_formats_allowed() + ")");
        out.formats = f;
    }
    out.group_reporting = o.value("group_reporting", false);
    return out;
}

}  // namespace blksim::scenario
