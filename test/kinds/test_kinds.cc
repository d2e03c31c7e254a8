// Every kind a scenario can name, taken from the lists (models/device/device_kinds.cc,
// models/sched/scheduler_kinds.cc, models/workload/engine_kinds.cc, models/report/output_formats.cc):
// nothing here names a kind, so a kind added to a list is tested without editing this file.
#include <catch2/catch.hpp>

#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/device/device_kinds.h"
#include "models/kind/param.h"
#include "models/report/output_format.h"
#include "models/sched/kernel_elevator.h"
#include "models/sched/scheduler_kinds.h"
#include "models/workload/engine.h"
#include "models/workload/engine_kinds.h"
#include "test/cli/cli_fixture.h"
#include "tools/experiment/simulate.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/schema_check.h"

using namespace blksim;
using json = nlohmann::json;

namespace {

// A device entry of model `k` with its defaults; a composite gets two members of the first
// model that may be one.
json device_entry(const dev::DeviceKind& k) {
    json d = {{"name", "d0"}, {"model", std::string(k.name())}};
    if (k.has_members())
        for (const dev::DeviceKind* m : dev::device_kinds())
            if (m->may_be_member()) {
                d["members"] = {{{"model", std::string(m->name())}}, {{"model", std::string(m->name())}}};
                break;
            }
    return d;
}

// The kernel tree a kernel:<name> scheduler is built from (the reference 6.1 tree), or
// nullopt when that scheduler cannot run here (linux-source-6.1 was not installed).
std::optional<std::string> kernel_tree_for(const sched::SchedulerKind& s) {
    if (sched::kernel_elevator_of(s).empty())
        return std::string();
    if (std::string(BLKSIM_KERNEL_61_TREE).empty()) {
        WARN("linux-source-6.1 is not installed: " << s.name() << " not tested");
        return std::nullopt;
    }
    return std::string(BLKSIM_KERNEL_61_TREE);
}

json tiny_scenario(const dev::DeviceKind& k, std::string_view scheduler, const std::string& kernel_tree = "") {
    json doc = {{"host", {{"cost_profile", "desktop-8t"}, {"cpus", 2}}},
            {"devices", {device_entry(k)}},
            {"queues", {{{"device", "d0"}, {"scheduler", std::string(scheduler)}}}},
            {"jobs",
             {{{"name", "j"}, {"device", "d0"}, {"ioengine", "libaio"}, {"iodepth", 4}, {"rw", "randrw"},
               {"bs", "4k"}, {"runtime", "40ms"}, {"time_based", true}}}}};
    if (!kernel_tree.empty())
        doc["kernel"]["tree"] = kernel_tree;
    return doc;
}

std::optional<double> metric(const std::vector<experiment::Metric>& ms, const std::string& key) {
    for (const auto& m : ms)
        if (m.key == key) return m.value;
    return std::nullopt;
}

std::string read_source(const std::string& rel) {
    std::ifstream in(clitest::source_path(rel));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Every list of fio's formats the text writes, as its names: a synopsis's `--output-format
// A|B|...[,...]` or a table's `--output-format=A\|B\|...` code span (compare's own
// `--output-format normal|json]` is neither).
std::vector<std::vector<std::string>> output_format_lists(const std::string& text) {
    static const std::regex option(R"(--output-format[= ]((?:[a-z+]+\\?\|)+[a-z+]+)(?:\[,\.\.\.\]|`))");
    std::vector<std::vector<std::string>> lists;
    for (std::sregex_iterator it(text.begin(), text.end(), option), end; it != end; ++it) {
        std::vector<std::string> names;
        const std::string s = std::regex_replace((*it)[1].str(), std::regex(R"(\\)"), "");
        std::size_t from = 0;
        for (std::size_t bar; (bar = s.find('|', from)) != std::string::npos; from = bar + 1)
            names.push_back(s.substr(from, bar - from));
        names.push_back(s.substr(from));
        lists.push_back(names);
    }
    return lists;
}

std::string load_error(const json& doc) {
    try {
        scenario::load_scenario_text(doc.dump(), "kinds.json");
    } catch (const scenario::ScenarioError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("every listed scheduler runs on every listed device model", "[kinds]") {
    for (const sched::SchedulerKind* s : sched::scheduler_kinds()) {
        const auto tree = kernel_tree_for(*s);
        if (!tree)
            continue;
        for (const dev::DeviceKind* d : dev::device_kinds()) {
            INFO("scheduler " << s->name() << ", device " << d->name());
            const scenario::Scenario sc =
                scenario::load_scenario_text(tiny_scenario(*d, s->name(), *tree).dump(), "kinds.json");
            REQUIRE(sc.machine.queues.at(0).scheduler == s->name());
            const experiment::SimOutcome out = experiment::simulate(sc.machine);
            INFO(out.error);
            REQUIRE(out.status == 0);  // every end-of-run invariant held
            const auto reads = metric(out.metrics, "j/read.iops");
            const auto writes = metric(out.metrics, "j/write.iops");
            REQUIRE(reads.has_value());
            REQUIRE(writes.has_value());
            CHECK(*reads > 0);
            CHECK(*writes > 0);
        }
    }
}

TEST_CASE("every device model's parameters are checked by the schema and the loader", "[kinds]") {
    for (const dev::DeviceKind* k : dev::device_kinds()) {
        INFO("device " << k->name());
        // An unknown key is refused, naming it.
        json doc = tiny_scenario(*k, "none");
        doc["devices"][0]["params"] = {{"no_such_parameter", 1}};
        CHECK_THAT(load_error(doc), Catch::Contains("/devices/0/params") && Catch::Contains("no_such_parameter"));
        // Every listed parameter is accepted, set to its default (when it has one to write).
        for (std::size_t i = 0; i < k->nr_params(); ++i) {
            const kind::ParamInfo& p = k->param(i);
            const std::string def = k->default_text(i);
            if (def == "-") continue;
            INFO("parameter " << p.name << " = " << def);
            const bool text = p.type == kind::ParamType::TIME || !p.names.empty();
            const json value = text ? json(def) : json::parse(def);
            doc["devices"][0]["params"] = {{std::string(p.name), value}};
            CHECK(load_error(doc).empty());
        }
    }
}

// A default is written once, in the config struct: a help text names it as "{default}",
// never as a number of its own that could drift from the struct.
const std::regex kLiteralDefault(R"((Default|default):? *\(?[0-9])");

TEST_CASE("no parameter's help writes its default as a literal, and every {default} renders", "[kinds]") {
    std::size_t placeholders = 0;
    for (const dev::DeviceKind* k : dev::device_kinds()) {
        for (std::size_t i = 0; i < k->nr_params(); ++i) {
            const kind::ParamInfo& p = k->param(i);
            const std::string help(p.help), def = k->default_text(i);
            INFO("device " << k->name() << " parameter " << p.name << ": " << help);
            CHECK_FALSE(std::regex_search(help, kLiteralDefault));
            CHECK(help.find("(default)") == std::string::npos);
            const std::string text = kind::help_text(p, def);
            CHECK(text.find("{default}") == std::string::npos);
            if (help.find("{default}") == std::string::npos)
                continue;
            ++placeholders;
            REQUIRE(def != "-");  // a row without a stored value has no default to name
            // The rendered value is the default column's, in prose ("80us" -> "80 us").
            std::string value = def;
            if (p.type == kind::ParamType::TIME && value != "0")
                value.insert(value.find_first_not_of("0123456789"), " ");
            CHECK_THAT(text, Catch::Contains("Default " + value));
        }
    }
    CHECK(placeholders > 0);
    for (const sched::SchedulerKind* s : sched::scheduler_kinds())
        for (std::size_t i = 0; i < s->nr_tunables(); ++i) {
            // `blksim list` prints a tunable's default beside its help, which is not rendered.
            const std::string help(s->tunable(i).help);
            INFO("scheduler " << s->name() << " tunable " << s->tunable(i).name << ": " << help);
            CHECK_FALSE(std::regex_search(help, kLiteralDefault));
            CHECK(help.find("{default}") == std::string::npos);
        }
    for (const workload::EngineKind* e : workload::engine_kinds())
        for (const auto& o : e->options) {
            const std::string help(o.help);
            INFO("engine " << e->name << " option " << o.name << ": " << help);
            CHECK_FALSE(std::regex_search(help, kLiteralDefault));
            CHECK(help.find("{default}") == std::string::npos);
        }
}

TEST_CASE("a time's default reads with a space before its unit in the help", "[kinds]") {
    const kind::ParamInfo time{.name = "t", .type = kind::ParamType::TIME, .help = "Default {default}. More."};
    CHECK(kind::help_text(time, "80us") == "Default 80 us. More.");
    CHECK(kind::help_text(time, "4s") == "Default 4 s. More.");
    CHECK(kind::help_text(time, "0") == "Default 0. More.");
    const kind::ParamInfo integer{.name = "n", .type = kind::ParamType::INT, .help = "Default {default}."};
    CHECK(kind::help_text(integer, "1023") == "Default 1023.");
    const kind::ParamInfo plain{.name = "n", .type = kind::ParamType::INT, .help = "No default here."};
    CHECK(kind::help_text(plain, "7") == "No default here.");
}

TEST_CASE("every listed scheduler is a choice of the scenario, of fio's ioscheduler= and of blksim list",
          "[kinds][cli]") {
    const auto list = clitest::run_blksim("list");
    REQUIRE(list.status == 0);
    for (const sched::SchedulerKind* s : sched::scheduler_kinds()) {
        const std::string name(s->name());
        INFO("scheduler " << name);
        CHECK_THAT(list.out, Catch::Contains("  " + name + " "));
        for (std::size_t i = 0; i < s->nr_tunables(); ++i)
            CHECK_THAT(list.out, Catch::Contains(std::string(s->tunable(i).name)));
        const auto tree = kernel_tree_for(*s);
        if (!tree)
            continue;
        scenario::FioCommand cmd;
        cmd.device = "nullb";
        cmd.fio_args = {"--name=j", "--ioscheduler=" + name, "--runtime=1ms", "--time_based"};
        if (!tree->empty())
            cmd.sets = {"kernel.tree=" + *tree};
        cmd.policy.getenv = [](const std::string&) { return std::optional<std::string>(); };
        const scenario::FioRun run = scenario::load_fio_command(cmd);
        CHECK(run.scenario.machine.queues.at(0).scheduler == name);
    }
    for (const dev::DeviceKind* d : dev::device_kinds()) {
        INFO("device " << d->name());
        CHECK_THAT(list.out, Catch::Contains("  " + std::string(d->name()) + " "));
        for (std::size_t i = 0; i < d->nr_params(); ++i)
            CHECK_THAT(list.out, Catch::Contains(std::string(d->param(i).name)));
    }
}

TEST_CASE("the fuzz dictionaries hold every kind's name and parameters", "[kinds]") {
    std::ifstream in(std::string(BLKSIM_SOURCE_DIR) + "/fuzz/dict/scenario_json.dict");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string dict = ss.str();
    for (const dev::DeviceKind* d : dev::device_kinds()) {
        INFO("device " << d->name());
        CHECK_THAT(dict, Catch::Contains("\"\\\"" + std::string(d->name()) + "\\\"\""));
        for (std::size_t i = 0; i < d->nr_params(); ++i)
            CHECK_THAT(dict, Catch::Contains("\"\\\"" + std::string(d->param(i).name) + "\\\":\""));
    }
    for (const sched::SchedulerKind* s : sched::scheduler_kinds()) {
        INFO("scheduler " << s->name());
        CHECK_THAT(dict, Catch::Contains("\"\\\"" + std::string(s->name()) + "\\\"\""));
    }
}

TEST_CASE("every listed I/O engine is a choice of the scenario, of fio's ioengine= and of blksim list",
          "[kinds][cli]") {
    const auto list = clitest::run_blksim("list");
    REQUIRE(list.status == 0);
    const json schema = scenario::load_schema_document(scenario::default_scenario_dir());
    const auto schema_names =
        schema["definitions"]["fio_options"]["properties"]["ioengine"]["enum"].get<std::vector<std::string>>();
    std::vector<std::string> names;
    for (const workload::EngineName& n : workload::engine_names())
        names.emplace_back(n.name);
    CHECK(schema_names == names);
    for (const workload::EngineKind* e : workload::engine_kinds()) {
        INFO("engine " << e->name);
        CHECK(&workload::engine_kind(e->id) == e);
        CHECK_THAT(list.out, Catch::Contains("  " + std::string(e->name) + " "));
        for (const auto& o : e->options)
            CHECK_THAT(list.out, Catch::Contains(std::string(o.name)));
    }
    for (const workload::EngineName& n : workload::engine_names()) {
        INFO("ioengine=" << n.name);
        scenario::FioCommand cmd;
        cmd.device = "nullb";
        cmd.fio_args = {"--name=j", "--ioengine=" + std::string(n.name), "--iodepth=4", "--runtime=2ms",
                        "--time_based"};
        cmd.policy.getenv = [](const std::string&) { return std::optional<std::string>(); };
        const scenario::FioRun run = scenario::load_fio_command(cmd);
        const workload::JobConfig& job = run.scenario.machine.jobs.at(0);
        CHECK(job.ioengine == n.engine);
        const auto engine = workload::make_engine(job, run.scenario.machine.host);
        // The sync engines (psync, pvsync2) keep one io_u; the others iodepth.
        const bool sync = n.engine == workload::IoEngine::PSYNC || n.engine == workload::IoEngine::PVSYNC2;
        CHECK(engine->depth() == (sync ? 1u : 4u));
        const experiment::SimOutcome out = experiment::simulate(run.scenario.machine);
        INFO(out.error);
        CHECK(out.status == 0);
        const auto reads = metric(out.metrics, "j/read.iops");
        REQUIRE(reads.has_value());
        CHECK(*reads > 0);
    }
}

TEST_CASE("every listed output format is a choice of --output-format, of output.format, of blksim list and of the docs",
          "[kinds][cli]") {
    std::vector<std::string> names;
    for (const report::OutputFormat* f : report::output_formats())
        names.emplace_back(f->name);
    const auto list = clitest::run_blksim("list formats");
    REQUIRE(list.status == 0);
    const json schema = scenario::load_schema_document(scenario::default_scenario_dir());
    const std::string schema_help = schema["definitions"]["output"]["properties"]["format"]["description"];
    const std::string scen = clitest::source_path("scenarios/examples/nullblk-psync-qd1.json");
    for (const report::OutputFormat* f : report::output_formats()) {
        const std::string name(f->name);
        INFO("output format " << name);
        CHECK(report::find_output_format(name) == f);
        const auto set = report::parse_output_formats(name);
        REQUIRE(set.has_value());
        CHECK(set->slot.at(static_cast<std::size_t>(f->slot)) == f);
        CHECK(*set == report::only(*f));
        CHECK_THAT(list.out, Catch::Contains("  " + name + " "));
        CHECK_THAT(schema_help, Catch::Contains(" " + name + " (" + std::string(f->help) + ")"));
        CHECK_THAT(report::output_formats_allowed(), Catch::Contains(name + ", "));
        const json doc = {{"host", {{"cost_profile", "desktop-8t"}, {"cpus", 1}}},
                          {"devices", {{{"name", "d0"}, {"model", "null_blk"}}}},
                          {"jobs", {{{"name", "j"}, {"device", "d0"}, {"runtime", "1ms"}, {"time_based", true}}}},
                          {"output", {{"format", name}}}};
        CHECK(scenario::load_scenario_text(doc.dump(), "kinds.json").output.formats == name);
        const auto run = clitest::run_blksim("run -q " + scen + " --set jobs.0.runtime=1ms --output-format " + name);
        CHECK(run.status == 0);
        CHECK_FALSE(run.out.empty());
    }
    // The synopses and the fio option table name exactly the listed formats, in list order.
    const auto usage = output_format_lists(read_source("docs/usage.md"));
    CHECK(usage.size() >= 2);  // blksim run and blksim fio
    for (const auto& l : usage)
        CHECK(l == names);
    const auto fio = output_format_lists(read_source("docs/fio.md"));
    REQUIRE(fio.size() >= 1);
    for (const auto& l : fio)
        CHECK(l == names);
}
