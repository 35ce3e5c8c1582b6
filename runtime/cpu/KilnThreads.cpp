//===- KilnThreads.cpp - the CPU runtime's worker threads -----------------===//
//
// One pool for the runtime's parallel work: the GEMM's blocks (OpenBLAS
// and Eigen each run single-threaded on a part of the product) and the
// compiled parallel loops' ranges of iterations (kiln_rt_parallel_for). It
// replaces the libraries' own pools, which spin-waited after each call: on
// a machine where another process held a core, a scan calling a GEMM per
// step ran about 10x slower, its threads spinning against each other and
// waiting for a descheduled thread at every step.
//
// Here work is claimed an index at a time (the caller takes part), workers
// spin for kSpin after their last job (a scan's next step arrives within
// it) yielding the core as they do, then sleep on a condition variable.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnThreads.h"
#include "runtime/cpu/KilnGuardedCall.h"
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace {

constexpr std::chrono::microseconds kSpin(100);
constexpr int kMaxWorkers = 255;

/// One parallelFor: its body, indices claimed so far and done.
struct Job {
  const std::function<void(int64_t)> *body;
  int64_t n;
  int wanted;                      ///< workers that may join
  int joined = 0;                  ///< under Pool::mutex
  std::atomic<int64_t> next{0};    ///< the next unclaimed index
  std::atomic<int64_t> finished{0};
  std::atomic<int> inside{0};      ///< workers holding this job
};

/// Claims and runs indices of `job` until none is left.
void work(Job &job) {
  for (int64_t i = job.next.fetch_add(1, std::memory_order_relaxed); i < job.n;
       i = job.next.fetch_add(1, std::memory_order_relaxed)) {
    (*job.body)(i);
    job.finished.fetch_add(1, std::memory_order_release);
  }
}

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class Pool {
public:
  static Pool &get() {
    static Pool *pool = new Pool(); // never destroyed: workers outlive exit handlers
    return *pool;
  }

  /// Offers `job` to up to job.wanted workers (started as needed).
  void post(Job &job) {
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mutex);
      while (started < std::min(job.wanted, kMaxWorkers)) {
        std::thread(&Pool::workerLoop, this).detach();
        ++started;
      }
      jobs.push_back(&job);
      epoch.fetch_add(1, std::memory_order_release);
      wake = sleeping > 0;
    }
    if (wake)
      ready.notify_all();
  }

  /// No worker joins `job` after this.
  void withdraw(Job &job) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = std::find(jobs.begin(), jobs.end(), &job);
    if (it != jobs.end())
      jobs.erase(it);
  }

private:
  /// A job with indices left and room for a worker, joined; null if none.
  Job *join() {
    for (auto it = jobs.begin(); it != jobs.end();) {
      Job *job = *it;
      if (job->next.load(std::memory_order_relaxed) >= job->n) {
        it = jobs.erase(it); // nothing left to claim
        continue;
      }
      job->inside.fetch_add(1, std::memory_order_relaxed);
      if (++job->joined >= job->wanted)
        jobs.erase(it);
      return job;
    }
    return nullptr;
  }

  void workerLoop() {
    for (;;) {
      Job *job = nullptr;
      uint64_t seen;
      {
        std::lock_guard<std::mutex> lock(mutex);
        job = join();
        seen = epoch.load(std::memory_order_relaxed);
      }
      if (!job && !(job = spinForJob(seen))) {
        std::unique_lock<std::mutex> lock(mutex);
        while (!(job = join())) {
          ++sleeping;
          ready.wait(lock);
          --sleeping;
        }
      }
      work(*job);
      job->inside.fetch_sub(1, std::memory_order_release);
    }
  }

  /// Waits up to kSpin for a new job, giving the core up between looks.
  Job *spinForJob(uint64_t seen) {
    auto until = std::chrono::steady_clock::now() + kSpin;
    do {
      for (int i = 0; i < 64; ++i) {
        if (epoch.load(std::memory_order_acquire) != seen) {
          std::lock_guard<std::mutex> lock(mutex);
          if (Job *job = join())
            return job;
          seen = epoch.load(std::memory_order_relaxed);
        }
        relax();
      }
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < until);
    return nullptr;
  }

  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Job *> jobs;
  std::atomic<uint64_t> epoch{0};
  int sleeping = 0;
  int started = 0;
};

/// The CPUs this process may run on (its affinity mask), at least 1.
int availableCpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// $KILN_NUM_THREADS when it is a positive number, else the available CPUs.
int initialDefault() {
  if (const char *env = std::getenv("KILN_NUM_THREADS")) {
    char *end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0)
      return int(std::min<long>(n, kMaxWorkers + 1));
  }
  return availableCpus();
}

std::atomic<int> &processDefault() {
  static std::atomic<int> threads(initialDefault());
  return threads;
}

thread_local int callerLimit = 0;

} // namespace

int kiln::runtime::threadsForCaller() {
  return callerLimit > 0 ? callerLimit : processDefault().load(std::memory_order_relaxed);
}

void kiln::runtime::parallelFor(int64_t n, int threads,
                                const std::function<void(int64_t)> &body) {
  if (threads <= 1 || n <= 1) {
    for (int64_t i = 0; i < n; ++i)
      body(i);
    return;
  }
  Job job;
  job.body = &body;
  job.n = n;
  job.wanted = int(std::min<int64_t>(threads - 1, n - 1));
  Pool &pool = Pool::get();
  pool.post(job);
  work(job);
  pool.withdraw(job);
  // Only indices a worker already runs are left; then no worker holds the job.
  for (int spins = 0; job.finished.load(std::memory_order_acquire) < n ||
                      job.inside.load(std::memory_order_acquire) > 0;
       ++spins) {
    if (spins < 256)
      relax();
    else
      std::this_thread::yield();
  }
}

extern "C" {

void kiln_rt_set_default_threads(int32_t threads) {
  processDefault().store(threads > 0 ? std::min(threads, kMaxWorkers + 1) : availableCpus(),
                         std::memory_order_relaxed);
}

int32_t kiln_rt_set_thread_limit(int32_t threads) {
  int previous = callerLimit;
  callerLimit = std::clamp(threads, 0, kMaxWorkers + 1);
  return previous;
}

int32_t kiln_rt_threads() { return kiln::runtime::threadsForCaller(); }

void kiln_rt_parallel_for(void (*task)(void *, int64_t, int64_t), void *context, int64_t trips) {
  int threads = kiln::runtime::threadsForCaller();
  // A host callback handler belongs to the calling thread (Python's takes
  // the GIL, which the caller may hold while it waits for its workers): a
  // call with one runs its loops on the calling thread.
  if (threads <= 1 || trips <= 1 || kiln::runtime::hasHostCallback())
    return task(context, 0, std::max<int64_t>(trips, 0));
  // About four ranges per thread, as the GEMM's blocks: a worker that
  // starts late (a busy machine) leaves its share to the others.
  int64_t ranges = std::min<int64_t>(trips, 4 * int64_t(threads));
  // A range that fails (KilnGuardedCall.cpp) ends alone; the loop starts
  // no other, and its caller raises the failure once all have ended.
  kiln::runtime::LoopFailure failure;
  kiln::runtime::parallelFor(ranges, threads, [&](int64_t r) {
    if (failure.status.load(std::memory_order_relaxed) == kKilnCallOk)
      kiln::runtime::runGuardedRange(task, context, r * trips / ranges,
                                     (r + 1) * trips / ranges, failure);
  });
  kiln::runtime::raiseLoopFailure(failure);
}
}
