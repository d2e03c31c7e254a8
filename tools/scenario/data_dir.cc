#include "tools/scenario/data_dir.h"

#include <cstdlib>
#include <system_error>
#include <vector>

namespace blksim::scenario {

namespace fs = std::filesystem;

static fs::path find_data_dir() {
    if (const char* d = std::getenv("BLKSIM_DATA_DIR"); d && *d)
        return d;
    std::error_code ec;
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    if (ec)
        return "share/blksim";
    const std::vector<fs::path> candidates{exe_dir / "share" / "blksim",
                                           (exe_dir.parent_path() / "share" / "blksim")};
    for (const fs::path& c : candidates)
        if (fs::is_regular_file(c / "scenarios" / "schema.json", ec))
            return c;
    return candidates.back();
}

const fs::path& data_dir() {
    static const fs::path dir = find_data_dir();
    return dir;
}

}  // namespace blksim::scenario
