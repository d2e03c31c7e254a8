// What a schema error means, in words. valijson reports a chain of errors from the root
// down to the offending value, in terms of schema keywords; the message here is built from
// the deepest error's location, the value found there and the schema's constraints at that
// location (types, enum, range, description), so it says what is allowed.
#pragma once

#include <string>
#include <vector>

#include "tools/scenario/json_util.h"

namespace blksim::scenario {

struct SchemaExplanation {
    std::string unknown_key;  // set for an unknown key: the message points at the key itself
    std::string message;
};

// schema: the schema document; doc: the document that failed; tokens: the JSON pointer
// tokens of the deepest error; valijson_message: valijson's own description of it.
SchemaExplanation explain_schema_error(const json& schema, const json& doc, const std::vector<std::string>& tokens,
                                       const std::string& valijson_message);

}  // namespace blksim::scenario
