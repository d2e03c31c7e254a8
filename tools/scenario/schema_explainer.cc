#include "tools/scenario/schema_explainer.h"

#include <algorithm>
#include <regex>
#include <set>

#include "tools/scenario/nearest.h"

namespace blksim::scenario {

namespace {

class SchemaExplainer {
public:
    explicit SchemaExplainer(const json& root) : root_(root) {}

    using Explanation = SchemaExplanation;

    Explanation explain(const json& doc, const std::vector<std::string>& tokens,
                        const std::string& valijson_message) const {
        std::vector<const json*> nodes;
        expand(root_, nodes, 0, doc);
        const json* value = &doc;
        for (const std::string& tok : tokens) {
            const json* child = element(*value, tok);
            if (!child) return {"", valijson_message};  // valijson's paths always exist; be safe
            nodes = step(nodes, tok, value->is_array(), *child);
            value = child;
        }
        return describe(*value, nodes, valijson_message);
    }

private:
    static const json* element(const json& v, const std::string& tok) {
        if (v.is_object()) return v.contains(tok) ? &v[tok] : nullptr;
        if (!v.is_array() || tok.empty() || !std::all_of(tok.begin(), tok.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return nullptr;
        const size_t i = std::stoul(tok);
        return i < v.size() ? &v[i] : nullptr;
    }

    // The subschemas that apply to `value` at a node: itself plus what $ref, allOf, anyOf,
    // oneOf lead to, and the branch of an if/then/else that `value` takes (a device's params
    // follow its model: an hdd's queue_depth has the hdd's range, not the SATA SSD's).
    void expand(const json& node, std::vector<const json*>& out, int depth, const json& value) const {
        if (!node.is_object() || depth > 16) return;
        out.push_back(&node);
        if (node.contains("$ref") && node["$ref"].is_string()) {
            const std::string ref = node["$ref"].get<std::string>();
            if (ref.starts_with("#")) {
                const json::json_pointer p(ref.substr(1));
                if (root_.contains(p)) expand(root_.at(p), out, depth + 1, value);
            }
        }
        for (const char* key : {"allOf", "anyOf", "oneOf"})
            if (node.contains(key) && node[key].is_array())
                for (const json& sub : node[key]) expand(sub, out, depth + 1, value);
        const Cond taken = node.contains("if") ? holds(node["if"], value) : Cond::UNKNOWN;
        if (node.contains("then") && taken != Cond::NO) expand(node["then"], out, depth + 1, value);
        if (node.contains("else") && taken != Cond::YES) expand(node["else"], out, depth + 1, value);
    }

    // Whether `value` satisfies an "if" condition, for the keywords the schema's conditions
    // use (properties with const/enum, required, not, allOf); anything else is UNKNOWN and
    // both branches apply, as a message that lists too much beats one that misleads.
    enum class Cond { NO, YES, UNKNOWN };
    static Cond holds(const json& cond, const json& value) {
        if (!cond.is_object()) return Cond::UNKNOWN;
        bool unknown = false;
        for (const auto& [key, arg] : cond.items()) {
            Cond c = Cond::UNKNOWN;
            if (key == "required" && arg.is_array()) {
                c = Cond::YES;
                for (const json& k : arg)
                    if (!value.is_object() || !k.is_string() || !value.contains(k.get<std::string>())) c = Cond::NO;
            } else if (key == "not") {
                const Cond n = holds(arg, value);
                c = n == Cond::YES ? Cond::NO : n == Cond::NO ? Cond::YES : Cond::UNKNOWN;
            } else if (key == "allOf" && arg.is_array()) {
                c = Cond::YES;
                for (const json& sub : arg) {
                    const Cond x = holds(sub, value);
                    if (x == Cond::NO) { c = Cond::NO; break; }
                    if (x == Cond::UNKNOWN) c = Cond::UNKNOWN;
                }
            } else if (key == "const") {
                c = value == arg ? Cond::YES : Cond::NO;
            } else if (key == "enum" && arg.is_array()) {
                c = std::find(arg.begin(), arg.end(), value) != arg.end() ? Cond::YES : Cond::NO;
            } else if (key == "properties" && arg.is_object()) {
                c = Cond::YES;  // an absent property satisfies its subschema
                if (value.is_object())
                    for (const auto& [name, sub] : arg.items()) {
                        if (!value.contains(name)) continue;
                        const Cond x = holds(sub, value[name]);
                        if (x == Cond::NO) { c = Cond::NO; break; }
                        if (x == Cond::UNKNOWN) c = Cond::UNKNOWN;
                    }
            }
            if (c == Cond::NO) return Cond::NO;
            unknown |= c == Cond::UNKNOWN;
        }
        return unknown ? Cond::UNKNOWN : Cond::YES;
    }

    std::vector<const json*> step(const std::vector<const json*>& nodes, const std::string& tok,
                                  bool in_array, const json& child) const {
        std::vector<const json*> out;
        for (const json* n : nodes) {
            if (in_array) {
                if (n->contains("items")) expand((*n)["items"], out, 0, child);
            } else if (n->contains("properties") && (*n)["properties"].contains(tok)) {
                expand((*n)["properties"][tok], out, 0, child);
            } else if (n->contains("additionalProperties") && (*n)["additionalProperties"].is_object()) {
                expand((*n)["additionalProperties"], out, 0, child);
            }
        }
        return out;
    }

    // First value of a keyword among the applicable subschemas.
    static const json* keyword(const std::vector<const json*>& nodes, const char* key) {
        for (const json* n : nodes)
            if (n->contains(key)) return &(*n)[key];
        return nullptr;
    }

    static std::vector<std::string> property_names(const std::vector<const json*>& nodes) {
        std::set<std::string> names;
        for (const json* n : nodes)
            if (n->contains("properties"))
                for (const auto& [k, v] : (*n)["properties"].items())
                    if (k != "$schema") names.insert(k);
        return {names.begin(), names.end()};
    }

    const json* property_schema_description(const std::vector<const json*>& nodes,
                                            const std::string& key) const {
        for (const json* n : nodes)
            if (n->contains("properties") && (*n)["properties"].contains(key)) {
                std::vector<const json*> sub;
                expand((*n)["properties"][key], sub, 0, json());  // the key is missing: no value
                if (const json* d = keyword(sub, "description")) return d;
            }
        return nullptr;
    }

    bool is_fio_section(const std::vector<const json*>& nodes) const {
        const json::json_pointer p("/definitions/fio_options");
        if (!root_.contains(p)) return false;
        const json* fio = &root_.at(p);
        return std::find(nodes.begin(), nodes.end(), fio) != nodes.end();
    }

    // Schema descriptions can run long; the first sentence is enough in a message.
    static std::string first_sentence(const std::string& text) {
        const size_t end = text.find(". ");
        return end == std::string::npos ? text : text.substr(0, end);
    }

    static std::string value_type(const json& v) {
        if (v.is_number_integer()) return "integer";
        if (v.is_number()) return "number";
        return v.type_name();  // string, boolean, object, array, null
    }

    static std::string type_phrase(const std::string& t) {
        if (t == "integer") return "an integer";
        if (t == "object") return "an object";
        if (t == "array") return "an array";
        if (t == "boolean") return "true or false";
        return "a " + t;
    }

    static bool type_allowed(const json& types, const json& v) {
        const std::string t = value_type(v);
        const auto ok = [&](const json& x) { return x == t || (x == "number" && t == "integer"); };
        if (types.is_string()) return ok(types);
        return std::any_of(types.begin(), types.end(), ok);
    }

    Explanation describe(const json& v, const std::vector<const json*>& nodes,
                         const std::string& valijson_message) const {
        // Unknown key: valijson names it at the end of its message.
        if (valijson_message.find("Object contains a property") != std::string::npos) {
            const size_t close = valijson_message.rfind('\'');
            const size_t open = valijson_message.rfind('\'', close - 1);
            const std::string key = valijson_message.substr(open + 1, close - open - 1);
            const std::vector<std::string> names = property_names(nodes);
            const std::string guess = nearest_word(key, names);
            const std::string mean = guess.empty() ? "" : "did you mean " + guess + "?; ";
            if (is_fio_section(nodes))
                return {key, "unknown fio option " + squote(key) + " (" + mean + "supported: " + join(names) + ")"};
            return {key, "unknown key " + squote(key) + " (" + mean + "allowed: " + join(names) + ")"};
        }
        return {"", describe_value(v, nodes, valijson_message)};
    }

    std::string describe_value(const json& v, const std::vector<const json*>& nodes,
                               const std::string& valijson_message) const {
        const json* desc = keyword(nodes, "description");
        const std::string hint = desc ? " (" + first_sentence(desc->get<std::string>()) + ")" : "";
        if (valijson_message.starts_with("Missing required property '")) {
            const size_t open = valijson_message.find('\'');
            const std::string key = valijson_message.substr(open + 1, valijson_message.rfind('\'') - open - 1);
            const json* d = property_schema_description(nodes, key);
            return "missing required key " + squote(key) + (d ? " (" + first_sentence(d->get<std::string>()) + ")" : "");
        }

        if (const json* types = keyword(nodes, "type"); types && !type_allowed(*types, v)) {
            std::vector<std::string> phrases;
            for (const json& t : types->is_array() ? *types : json::array({*types}))
                phrases.push_back(type_phrase(t.get<std::string>()));
            return "expected " + join(phrases, " or ") + ", got " + brief(v) + hint;
        }
        if (const json* e = keyword(nodes, "enum");
            e && std::find(e->begin(), e->end(), v) == e->end()) {
            // Plain names when all are strings (rw, ioengine); JSON otherwise, so that 1 and
            // "1" can be told apart (fio bools).
            const bool all_strings = std::all_of(e->begin(), e->end(), [](const json& x) { return x.is_string(); });
            std::vector<std::string> allowed;
            for (const json& x : *e) allowed.push_back(all_strings ? x.get<std::string>() : x.dump());
            return brief(v) + " is not allowed here; expected one of: " + join(allowed);
        }
        if (v.is_number()) {
            const json* lo = keyword(nodes, "minimum");
            const json* hi = keyword(nodes, "maximum");
            const double x = v.get<double>();
            if ((lo && x < lo->get<double>()) || (hi && x > hi->get<double>())) {
                const std::string range = lo && hi ? lo->dump() + ".." + hi->dump()
                                        : lo       ? ">= " + lo->dump()
                                                   : "<= " + hi->dump();
                return v.dump() + " is out of range (allowed: " + range + ")";
            }
            if (const json* m = keyword(nodes, "multipleOf");
                m && v.is_number_integer() && v.get<int64_t>() % m->get<int64_t>() != 0)
                return v.dump() + " is not a multiple of " + m->dump();
        }
        if (v.is_string()) {
            const std::string s = v.get<std::string>();
            if (const json* ml = keyword(nodes, "minLength"); ml && s.size() < ml->get<size_t>())
                return "must not be empty" + hint;
            if (const json* p = keyword(nodes, "pattern");
                p && !std::regex_search(s, std::regex(p->get<std::string>()))) {
                // integer options take strings only as digits, as in a fio job file
                const json* types = keyword(nodes, "type");
                const bool integer = types && types->is_array() && std::find(types->begin(), types->end(), "integer") != types->end();
                return squote(s) + (integer ? " is not an integer" : " is not valid here") + hint;
            }
        }
        if (v.is_array()) {
            if (const json* mi = keyword(nodes, "minItems"); mi && v.size() < mi->get<size_t>())
                return "needs at least " + plural(mi->get<size_t>(), "element") + hint;
        }
        return valijson_message + hint;  // a constraint the explanations above do not cover
    }

    const json& root_;
};

}  // namespace

SchemaExplanation explain_schema_error(const json& schema, const json& doc, const std::vector<std::string>& tokens,
                                       const std::string& valijson_message) {
    return SchemaExplainer(schema).explain(doc, tokens, valijson_message);
}

}  // namespace blksim::scenario
