// Where blksim's own files are at run time, found from the running executable so that no
// path of the machine it was built on is compiled in: the folder holding scenarios/ (the
// schema, device and CPU profiles, shipped scenarios), kcompat/ and the reference kernel
// files of kernel:<name> schedulers, and blksim-plot.py.
//   $BLKSIM_DATA_DIR                  when set
//   <exe dir>/share/blksim            a build tree (CMake links it to the source tree)
//   <exe dir>/../share/blksim         an installed <prefix>/bin/blksim
#pragma once

#include <filesystem>

namespace blksim::scenario {

// The first of the above that holds scenarios/schema.json; the installed location when none
// does, so that the error about a missing file names where it was looked for.
const std::filesystem::path& data_dir();

}  // namespace blksim::scenario
