// Building and loading kernel-scheduler plugins: see kernel_plugin.h.
#include "models/sched/kernel_plugin.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

extern char** environ;

namespace blksim::sched {

namespace fs = std::filesystem;

namespace {

constexpr int kHz = 250;  // CONFIG_HZ of the plugins, Debian's and blksim's default

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

// kcompat/: BLKSIM_KCOMPAT_DIR in the environment, else blksim's own.
fs::path kcompat_dir(const KernelPluginData& data) {
    fs::path d = env_or("BLKSIM_KCOMPAT_DIR", data.kcompat.string());
    if (d.empty() || !fs::is_directory(d / "include" / "linux"))
        throw KernelPluginError(fmt::format("kcompat/ not found at '{}' (set BLKSIM_KCOMPAT_DIR to blksim's kcompat folder)",
                                            d.string()));
    return d;
}

fs::path cache_dir() {
    if (const char* d = std::getenv("BLKSIM_CACHE_DIR"); d && *d)
        return fs::path(d) / "kernel-plugins";
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return fs::path(x) / "blksim" / "kernel-plugins";
    if (const char* h = std::getenv("HOME"); h && *h)
        return fs::path(h) / ".cache" / "blksim" / "kernel-plugins";
    return fs::temp_directory_path() / "blksim-kernel-plugins";
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw KernelPluginError(fmt::format("cannot read '{}'", p.string()));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// FNV-1a over everything that goes into a plugin.
struct Hash {
    uint64_t h = 1469598103934665603ull;
    void add(std::string_view s) {
        for (unsigned char c : s)
            h = (h ^ c) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;  // separator
    }
};

// The file of each kernel elevator in block/.
std::string_view source_file_of(std::string_view name) {
    if (name == "mq-deadline")
        return "mq-deadline.c";
    if (name == "kyber")
        return "kyber-iosched.c";
    if (name == "bfq")
        return "bfq-iosched.c";
    return {};
}

// The files built together with the scheduler's (block/Makefile: bfq-y := bfq-iosched.o
// bfq-wf2q.o bfq-cgroup.o, with the header they share). bfq-cgroup.c is compiled with
// CONFIG_BFQ_GROUP_IOSCHED off, as its #else part (the root group only).
std::vector<std::string> companions_of(std::string_view name) {
    if (name == "bfq")
        return {"bfq-iosched.h", "bfq-wf2q.c", "bfq-cgroup.c"};
    return {};
}

// A companion is taken from the folder of the scheduler's file (a tree, or a patched copy
// beside its patched companions), else from the reference tree's block/.
fs::path companion_path(const fs::path& source, const std::string& file, const KernelPluginData& data) {
    const fs::path ref = env_or("BLKSIM_KERNEL_REF_TREE", data.ref_tree.string());
    for (const fs::path& p : {source.parent_path() / file, ref.empty() ? fs::path() : ref / "block" / file})
        if (!p.empty() && fs::is_regular_file(p))
            return p;
    throw KernelPluginError(fmt::format("'{}': no {} beside it (bfq is built from bfq-iosched.c, bfq-wf2q.c, "
                                        "bfq-cgroup.c and bfq-iosched.h together; give its block/ folder)",
                                        source.string(), file));
}

// The kernel tree that supplies lib/rbtree.c and include/linux/rbtree*.h: the one the source
// is in, else the reference tree blksim was built with.
fs::path rbtree_tree(const fs::path& tree, const fs::path& source, const KernelPluginData& data) {
    std::vector<fs::path> candidates{tree, tree.parent_path(), source.parent_path().parent_path(),
                                     env_or("BLKSIM_KERNEL_REF_TREE", data.ref_tree.string())};
    for (const fs::path& c : candidates)
        if (!c.empty() && fs::is_regular_file(c / "lib" / "rbtree.c") &&
            fs::is_regular_file(c / "include" / "linux" / "rbtree_augmented.h"))
            return c;
    throw KernelPluginError(fmt::format(
        "'{}': no lib/rbtree.c and include/linux/rbtree*.h beside it (give a kernel tree, or build blksim "
        "with linux-source-6.1 installed so that its tree is the fallback)",
        tree.string()));
}

// Runs argv, its stderr to `log`; the exit status.
int run(const std::vector<std::string>& argv, const fs::path& log) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        throw KernelPluginError(fmt::format("cannot run the C compiler '{}' (set CC)", argv[0]));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The compiler's first error and the lines after it, for the one message.
std::string first_error(const std::string& log) {
    std::istringstream in(log);
    std::string line, out;
    int left = 0;
    while (std::getline(in, line)) {
        if (out.empty() && (line.find("error:") != std::string::npos || line.find("undefined reference") != std::string::npos))
            left = 3;
        if (left > 0) {
            out += (out.empty() ? "" : "\n  ") + line;
            --left;
        }
    }
    return out.empty() ? log.substr(0, 400) : out;
}

}  // namespace

fs::path kernel_scheduler_source(const fs::path& tree, std::string_view name) {
    if (fs::is_regular_file(tree)) {
        if (tree.extension() != ".c")
            throw KernelPluginError(fmt::format("'{}' is not a C file (give a kernel tree, its block/ folder or "
                                                "the scheduler's .c file)", tree.string()));
        return tree;
    }
    if (!fs::is_directory(tree))
        throw KernelPluginError(fmt::format("kernel tree '{}' does not exist", tree.string()));
    const std::string_view file = source_file_of(name);
    if (file.empty())
        throw KernelPluginError(fmt::format("no kernel scheduler called '{}' (kcompat runs: mq-deadline, kyber, bfq)", name));
    for (const fs::path& p : {tree / "block" / file, tree / file})
        if (fs::is_regular_file(p))
            return p;
    throw KernelPluginError(fmt::format("'{}' has neither block/{} nor {}", tree.string(), file, file));
}

namespace {

// Everything the plugin is built from: the compiler, HZ, the scheduler's source, the tree's
// rbtree and kcompat. The cache keeps one plugin per hash.
Hash plugin_inputs_hash(const std::string& cc, const fs::path& source, const std::vector<fs::path>& companions,
                        const fs::path& rb, const fs::path& kc, const std::vector<std::string>& headers) {
    Hash h;
    h.add(cc);
    h.add(std::to_string(kHz));
    h.add(source.filename().string());
    h.add(read_file(source));
    for (const fs::path& c : companions) {
        h.add(c.filename().string());
        h.add(read_file(c));
    }
    h.add(read_file(rb / "lib" / "rbtree.c"));
    for (const std::string& f : headers)
        h.add(read_file(rb / "include" / "linux" / f));
    for (const auto& e : fs::recursive_directory_iterator(kc))
        if (e.is_regular_file()) {
            h.add(fs::relative(e.path(), kc).string());
            h.add(read_file(e.path()));
        }
    return h;
}

}  // namespace

fs::path build_kernel_plugin(const fs::path& tree_in, std::string_view name, const KernelPluginData& data) {
    const fs::path tree = fs::absolute(tree_in).lexically_normal();
    const fs::path source = kernel_scheduler_source(tree, name);
    const fs::path kc = kcompat_dir(data);
    const fs::path rb = rbtree_tree(tree, source, data);
    const std::string cc = env_or("CC", "cc");

    std::vector<fs::path> glue;
    for (const auto& e : fs::directory_iterator(kc / "lib"))
        if (e.path().extension() == ".c")
            glue.push_back(e.path());
    std::sort(glue.begin(), glue.end());
    const std::vector<std::string> headers{"rbtree.h", "rbtree_types.h", "rbtree_augmented.h"};
    std::vector<fs::path> companions;
    for (const std::string& f : companions_of(name))
        companions.push_back(companion_path(source, f, data));
    const Hash h = plugin_inputs_hash(cc, source, companions, rb, kc, headers);
    const fs::path dir = cache_dir();
    const fs::path so = dir / fmt::format("{}-{:016x}.so", name, h.h);
    if (!fs::exists(so)) {
        // Built in a folder of its own and renamed into place, so that two runs building the
        // same plugin at once never load half an object.
        const fs::path work = dir / fmt::format("build-{}-{:016x}-{}", name, h.h, getpid());
        std::error_code ec;
        fs::remove_all(work, ec);
        fs::create_directories(work / "include" / "linux", ec);
        if (ec)
            throw KernelPluginError(fmt::format("cannot create the plugin build folder '{}': {}", work.string(), ec.message()));
        const fs::path c = work / source.filename();
        fs::copy_file(source, c, ec);
        for (const fs::path& f : companions)
            if (!ec)
                fs::copy_file(f, work / f.filename(), ec);
        for (const std::string& f : headers)
            if (!ec)
                fs::copy_file(rb / "include" / "linux" / f, work / "include" / "linux" / f, ec);
        if (ec)
            throw KernelPluginError(fmt::format("cannot copy the sources into '{}': {}", work.string(), ec.message()));
        std::vector<std::string> argv{cc, "-std=gnu11", "-O2", "-fPIC", "-shared", "-fexceptions",
                                      "-fvisibility=hidden", "-w", "-Wl,--no-undefined",
                                      // __FILE__ in BUG and WARN messages: the file's own name.
                                      "-fmacro-prefix-map=" + work.string() + "/=",
                                      fmt::format("-DCONFIG_HZ={}", kHz),
                                      "-I", (work / "include").string(), "-I", (kc / "include").string(),
                                      "-iquote", (kc / "block").string(), c.string(), (rb / "lib" / "rbtree.c").string()};
        for (const fs::path& f : companions)
            if (f.extension() == ".c")
                argv.push_back((work / f.filename()).string());
        for (const fs::path& g : glue)
            argv.push_back(g.string());
        const fs::path tmp = work / "plugin.so";
        argv.insert(argv.end(), {"-o", tmp.string()});
        const fs::path log = work / "cc.log";
        if (run(argv, log) != 0) {
            // The compiler names the copy in the build folder; the user knows the original.
            std::string msg = first_error(read_file(log));
            for (size_t at; (at = msg.find(c.string())) != std::string::npos;)
                msg.replace(at, c.string().size(), source.string());
            fs::remove_all(work, ec);
            throw KernelPluginError(fmt::format("'{}' does not compile against kcompat:\n  {}", source.string(), msg));
        }
        fs::rename(tmp, so, ec);
        fs::remove_all(work);
        if (ec)
            throw KernelPluginError(fmt::format("cannot write the plugin '{}': {}", so.string(), ec.message()));
    }
    std::shared_ptr<const KernelPlugin> plugin;
    try {
        plugin = KernelPlugin::load(so);
    } catch (const KernelPluginError& e) {
        throw KernelPluginError(fmt::format("'{}': {}", source.string(), e.what()));
    }
    if (plugin->elevator_name() != name)
        throw KernelPluginError(fmt::format("'{}' registers the elevator '{}', not '{}'", source.string(),
                                            plugin->elevator_name(), name));
    return so;
}

namespace {

// Where kernel code would BUG(): the run stops, naming the place.
[[noreturn]] void plugin_bug(const char* what) { throw std::logic_error(what); }
// A WARN: the kernel logs it and goes on; so does the run, saying so once per thread.
void plugin_warn(const char* what) { fmt::print(stderr, "blksim: warning: {}\n", what); }

}  // namespace

std::shared_ptr<const KernelPlugin> KernelPlugin::load(const fs::path& so) {
    static std::mutex mu;
    static std::map<std::string, std::shared_ptr<const KernelPlugin>> loaded;
    const std::lock_guard lock(mu);
    const std::string key = fs::absolute(so).lexically_normal().string();
    if (const auto it = loaded.find(key); it != loaded.end())
        return it->second;
    void* handle = dlopen(key.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        throw KernelPluginError(fmt::format("cannot load its plugin {}: {}", key, dlerror()));
    const auto init = reinterpret_cast<kcompat_module_init_fn>(dlsym(handle, "kcompat_module_init"));
    const auto api_fn = reinterpret_cast<kcompat_api_fn>(dlsym(handle, "kcompat_api"));
    if (!api_fn || !init) {
        dlclose(handle);
        throw KernelPluginError(fmt::format("it has no {} (plugin {})", api_fn ? "module_init() function" : "kcompat_api()", key));
    }
    const kcompat_api* api = api_fn();
    if (api->version != KCOMPAT_API_VERSION) {
        dlclose(handle);
        throw KernelPluginError(fmt::format("its plugin {} was built with another kcompat (API {}, blksim has {})", key,
                                            api->version, KCOMPAT_API_VERSION));
    }
    api->set_bug_handler(plugin_bug);
    api->set_warn_handler(plugin_warn);
    const int rc = init();
    const char* name = api->elevator_name();
    if (rc != 0 || name == nullptr) {
        dlclose(handle);
        throw KernelPluginError(rc != 0 ? fmt::format("its module_init() failed ({})", rc)
                                        : std::string("its module_init() registered no elevator (elv_register() was not called)"));
    }
    auto p = std::make_shared<const KernelPlugin>(key, api, name);
    loaded.emplace(key, p);
    return p;
}

}  // namespace blksim::sched
