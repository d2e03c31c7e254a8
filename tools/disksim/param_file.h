// DiskSim's parameter-file syntax (libparam), as its drive descriptions use it:
//
//   disksim_disk NAME {            a block: type, name, then "Key words = value" entries
//     Bulk sector transfer time = 0.099000,
//     Model = source atlas10k.model,          a value may be a word or words
//     Scheduler = disksim_ioqueue { ... },    ... a nested block (type, no name)
//     Zones = [ dm_layout_g1_zone { ... }, ... ],   ... or a list of values
//   } # end                        "#" comments run to the end of the line
//
// Only the reading: what the values mean is tools/disksim/import.cc's business. Errors name
// the file and line (DisksimError).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blksim::disksim {

// Bad input: the message names the file, the line and what was expected.
struct DisksimError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ParamBlock;

struct ParamValue {
    enum class Kind { WORD, BLOCK, LIST };
    Kind kind = Kind::WORD;
    std::string text;                    // WORD: as written (a number, a name, "source FILE")
    std::shared_ptr<ParamBlock> block;   // BLOCK
    std::vector<ParamValue> list;        // LIST
    int line = 0;
};

struct ParamBlock {
    std::string type, name;
    std::string file;
    int line = 0;
    std::vector<std::pair<std::string, ParamValue>> entries;

    const ParamValue* find(const std::string& key) const;
    // The entry's value; DisksimError naming the file, block and key when missing or not of
    // the expected kind. num() checks that the word is a number (in [lo, hi]).
    const ParamValue& get(const std::string& key) const;
    double num(const std::string& key, double lo, double hi) const;
    double num_or(const std::string& key, double dflt, double lo, double hi) const;
    std::string word(const std::string& key) const;
    // "file:line" of a value, for messages.
    std::string where(const ParamValue& v) const { return file + ":" + std::to_string(v.line); }
};

// The top-level blocks of `text` (read from `file`, which messages name).
std::vector<ParamBlock> parse_param_text(const std::string& text, const std::string& file);
std::vector<ParamBlock> parse_param_file(const std::string& path);
// The start of `text` for a message: its first line, at most 80 characters, "..." if cut.
// An error never echoes more of a file than that (a wrong file may be anything).
std::string excerpt(std::string_view text);
// A number as DiskSim writes it ("0.099000", "17938986"); DisksimError naming where.
double param_number(const ParamValue& v, const std::string& file, const std::string& what);

}  // namespace blksim::disksim
