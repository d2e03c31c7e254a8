// The test binary's main: Catch2's session, with one default changed. A test filter that
// matches no test (a misspelt tag or name) fails with exit status 2 instead of passing with
// nothing run, as `-w NoTests` would make it; a later -w on the command line adds to this.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
    Catch::Session session;
    const int rc = session.applyCommandLine(argc, argv);
    if (rc != 0)
        return rc;
    session.configData().warnings =
        static_cast<Catch::WarnAbout::What>(session.configData().warnings | Catch::WarnAbout::NoTests);
    return session.run();
}
