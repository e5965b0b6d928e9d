// ackstall/scenario/runner.h — the sweep runner: many independent runs (the cells of a sweep,
// a map's grid) on parallel threads, their results handed back in order.
//
// compute(k) runs for every k in [0, n) on `jobs` worker threads; deliver(k, result) runs on the
// calling thread for k = 0, 1, 2, ... in order, as soon as result k is ready, so a caller can
// stream rows and draw progress. A worker runs at most 4 x jobs cells ahead of delivery: the
// results waiting stay few, memory stays flat in n. deliver returns false to stop: no further
// cell starts, and the cells already running finish unseen.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace ackstall::scenario {

template <class Result>
void run_ordered(std::uint64_t n, unsigned jobs, const std::function<Result(std::uint64_t)>& compute,
                 const std::function<bool(std::uint64_t, Result&&)>& deliver) {
  if (n == 0) return;
  const unsigned workers = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(jobs, n)));
  const std::uint64_t window = 4ull * workers;
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::uint64_t, Result> done;
  std::uint64_t next = 0, delivered = 0;
  bool stop = false;
  auto worker = [&] {
    for (;;) {
      std::uint64_t k;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return stop || next >= n || next < delivered + window; });
        if (stop || next >= n) return;
        k = next++;
      }
      Result r = compute(k);
      std::lock_guard lock(mu);
      done.emplace(k, std::move(r));
      cv.notify_all();
    }
  };
  std::vector<std::jthread> threads;
  for (unsigned i = 0; i < workers; ++i) threads.emplace_back(worker);
  for (std::uint64_t k = 0; k < n; ++k) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done.contains(k); });
    auto node = done.extract(k);
    delivered = k + 1;
    cv.notify_all();
    lock.unlock();
    if (!deliver(k, std::move(node.mapped()))) {
      lock.lock();
      stop = true;
      cv.notify_all();
      break;
    }
  }
}

}  // namespace ackstall::scenario
