#include "tools/experiment/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

namespace blksim::experiment {

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& task,
                  const std::function<void(std::size_t)>& progress, double tick) {
    if (n == 0) {
        if (progress)
            progress(0);
        return;
    }
    jobs = static_cast<unsigned>(std::clamp<std::size_t>(jobs == 0 ? default_jobs() : jobs, 1, n));
    std::atomic<std::size_t> next{0};
    std::mutex mu;
    std::condition_variable cv;
    std::size_t done = 0;  // under mu
    {
        std::vector<std::jthread> workers;
        workers.reserve(jobs);
        for (unsigned w = 0; w < jobs; ++w)
            workers.emplace_back([&] {
                for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
                    task(i);
                    const std::lock_guard lock(mu);
                    ++done;
                    cv.notify_one();
                }
            });
        std::unique_lock lock(mu);
        const auto period = std::chrono::duration<double>(tick);
        while (done < n) {
            cv.wait_for(lock, period, [&] { return done == n; });
            if (progress && done < n) {
                const std::size_t d = done;
                lock.unlock();
                progress(d);
                lock.lock();
            }
        }
    }  // the jthreads join here
    if (progress)
        progress(n);
}

std::vector<std::size_t> dearest_first(const std::vector<double>& cost) {
    std::vector<std::size_t> order(cost.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
    return order;
}

}  // namespace blksim::experiment
