#include "tools/scenario/schema_check.h"

#include "tools/scenario/kind_schema.h"

#include <algorithm>
#include <filesystem>

// GCC 12 at -O2/-O3 reports a false -Wrestrict inside valijson's string handling
// (json_pointer.hpp, validation_visitor.hpp); keep it from failing -Werror builds.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#pragma GCC diagnostic pop

#include "tools/scenario/scenario.h"
#include "tools/scenario/schema_explainer.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

namespace {

// Refuses a string (key or value) that is not well-formed UTF-8, naming where.
void check_utf8(const json& v, const std::string& ptr, const Reporter& rep) {
    const auto bad = [](std::string_view s) -> size_t {  // offset of the first bad byte, or npos
        for (size_t i = 0; i < s.size();) {
            const auto c = static_cast<unsigned char>(s[i]);
            const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
            if (n == 0 || i + n > s.size()) return i;
            for (size_t k = 1; k < n; ++k)
                if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return i;
            i += n;
        }
        return std::string_view::npos;
    };
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        if (const size_t off = bad(s); off != std::string_view::npos)
            rep.fail(ptr, "not valid UTF-8 (at byte " + std::to_string(off + 1) + " of the text)");
    } else if (v.is_object()) {
        for (const auto& item : v.items()) {
            if (const size_t off = bad(item.key()); off != std::string_view::npos)
                rep.fail(ptr, "a key is not valid UTF-8 (at byte " + std::to_string(off + 1) + ")");
            check_utf8(item.value(), child(ptr, item.key()), rep);
        }
    } else if (v.is_array()) {
        for (size_t i = 0; i < v.size(); ++i) check_utf8(v[i], child(ptr, i), rep);
    }
}

// The first error that no other error lies below: the offending value itself rather
// than the "failed to validate item #0" errors of its parents.
const valijson::ValidationResults::Error& deepest(const std::vector<valijson::ValidationResults::Error>& errors) {
    const auto below = [](const auto& parent, const auto& e) {
        return e.context.size() > parent.context.size() &&
               std::equal(parent.context.begin(), parent.context.end(), e.context.begin());
    };
    for (const auto& e : errors)
        if (std::none_of(errors.begin(), errors.end(), [&](const auto& f) { return below(e, f); }))
            return e;
    return errors.front();
}

}  // namespace

SchemaChecker::SchemaChecker(json schema, const std::string& origin)
    : doc_(std::move(schema)), schema_(std::make_unique<valijson::Schema>()) {
    try {
        valijson::SchemaParser parser;
        valijson::adapters::NlohmannJsonAdapter adapter(doc_);
        parser.populateSchema(adapter, *schema_);
    } catch (const std::exception& e) {
        throw ScenarioError(origin + ": invalid JSON Schema: " + e.what());
    }
}

SchemaChecker::~SchemaChecker() = default;

void SchemaChecker::check(const json& doc, const Reporter& rep) const {
    // JSON text is UTF-8 once nlohmann has parsed it, but strings from fio job files,
    // command lines and --set are raw bytes, and valijson's maxLength counts characters
    // by reading past its table on a malformed sequence (found by fuzz/fio_job.cc).
    check_utf8(doc, "", rep);
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(doc);
    if (validator.validate(*schema_, target, &results)) return;

    const std::vector<valijson::ValidationResults::Error> errors(results.begin(), results.end());
    const valijson::ValidationResults::Error& leaf = deepest(errors);
    std::vector<std::string> tokens;
    std::string ptr;
    for (const std::string& c : leaf.context) {
        if (c == "<root>") continue;
        std::string tok = c.size() >= 2 && c.front() == '[' && c.back() == ']' ? c.substr(1, c.size() - 2) : c;
        ptr = child(ptr, tok);
        tokens.push_back(std::move(tok));
    }
    const SchemaExplanation why = explain_schema_error(doc_, doc, tokens, leaf.description);
    rep.fail(why.unknown_key.empty() ? ptr : child(ptr, why.unknown_key), why.message);
}

json load_schema_document(const std::string& base_dir) {
    const fs::path path = fs::path(base_dir) / "schema.json";
    const Reporter rep(path.string());
    json schema = parse_json(read_text_file(path, rep, "the scenario schema"), rep);
    merge_kind_schemas(schema);
    return schema;
}

json definition_schema(const json& scenario_schema, const std::string& definition) {
    return json{{"$ref", "#/definitions/" + definition}, {"definitions", scenario_schema.at("definitions")}};
}

}  // namespace blksim::scenario
