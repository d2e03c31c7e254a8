// Schema validation with one clear message: valijson checks a document against
// scenarios/schema.json, and the deepest error becomes "<file>: <json path>: <what is
// allowed>" (schema_explainer.h words it).
#pragma once

#include <memory>
#include <string>

#include "tools/scenario/json_util.h"

namespace valijson {
class Schema;
}

namespace blksim::scenario {

class SchemaChecker {
public:
    // schema: a JSON Schema document; origin names it in errors about the schema itself.
    SchemaChecker(json schema, const std::string& origin);
    ~SchemaChecker();

    // Refuses doc, naming the offending value through rep, unless it satisfies the schema.
    void check(const json& doc, const Reporter& rep) const;

    const json& document() const { return doc_; }

private:
    json doc_;
    std::unique_ptr<valijson::Schema> schema_;
};

// scenarios/schema.json under base_dir.
json load_schema_document(const std::string& base_dir);

// The schema of a file that one of the scenario schema's definitions describes
// ("cost_profile_file", "device_profile_file"): its definitions, with that one as root.
json definition_schema(const json& scenario_schema, const std::string& definition);

}  // namespace blksim::scenario
