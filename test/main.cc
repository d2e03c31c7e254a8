// The test binary's main: Catch2's session, with one default changed. A test filter that
// matches no test (a misspelt tag or name) fails with exit status 2 instead of passing with
// nothing run, as `-w NoTests` would make it; a later -w on the command line adds to this.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char* argv[]) {
    // kernel:<name> schedulers build their plugins into a cache (models/sched/kernel_plugin.h):
    // the tests' go to the build folder, not under $HOME, for the blksim processes they start too.
    if (const char* c = std::getenv("BLKSIM_CACHE_DIR"); c == nullptr || *c == '\0')
        setenv("BLKSIM_CACHE_DIR", BLKSIM_BINARY_DIR, 1);
    Catch::Session session;
    const int rc = session.applyCommandLine(argc, argv);
    if (rc != 0)
        return rc;
    session.configData().warnings =
        static_cast<Catch::WarnAbout::What>(session.configData().warnings | Catch::WarnAbout::NoTests);
    return session.run();
}
