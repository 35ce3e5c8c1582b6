//===- CpuParallelForTest.cpp - kiln_rt_parallel_for ----------------------===//
//
// The compiled parallel loops' entry (lowering/ParallelLoopsToRuntime.cpp):
// the ranges it hands the task cover [0, trips) exactly once, at every
// thread limit, from concurrent callers, when a task runs a loop of its
// own, and when a worker is slow (the caller waits for it). The
// oracle is a count per index, which must end at exactly 1. A range that
// fails (an allocation, a host callback) ends the caller's guarded call
// with that failure, on whichever thread it ran, and a call with a host
// callback handler runs its loops on the calling thread.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <dlfcn.h>
#include <memory>
#include <thread>
#include <vector>

namespace {

void *runtime() {
  static void *lib = dlopen(KILN_RUNTIME_CPU_PATH, RTLD_NOW | RTLD_LOCAL);
  return lib;
}

using Task = void (*)(void *, int64_t, int64_t);
void parallelFor(Task task, void *context, int64_t trips) {
  auto fn = reinterpret_cast<void (*)(Task, void *, int64_t)>(
      dlsym(runtime(), "kiln_rt_parallel_for"));
  ASSERT_TRUE(fn) << dlerror();
  fn(task, context, trips);
}

template <typename Fn> Fn entry(const char *name) {
  return reinterpret_cast<Fn>(dlsym(runtime(), name));
}

int32_t setThreadLimit(int32_t threads) {
  auto set =
      reinterpret_cast<int32_t (*)(int32_t)>(dlsym(runtime(), "kiln_rt_set_thread_limit"));
  return set ? set(threads) : -1;
}

/// Counts, per index, how often a range covered it; ranges must be
/// non-empty and within [0, trips).
struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> badRanges{0};
  explicit Coverage(int64_t trips) : hits(static_cast<size_t>(trips)) {}
  static void task(void *context, int64_t begin, int64_t end) {
    auto *c = static_cast<Coverage *>(context);
    if (begin >= end || begin < 0 || end > int64_t(c->hits.size())) {
      c->badRanges.fetch_add(1);
      return;
    }
    for (int64_t i = begin; i < end; ++i)
      c->hits[size_t(i)].fetch_add(1);
  }
  void expectEachOnce() const {
    EXPECT_EQ(badRanges.load(), 0);
    for (size_t i = 0; i < hits.size(); ++i)
      ASSERT_EQ(hits[i].load(), 1) << "index " << i;
  }
};

TEST(CpuParallelFor, CoversEachIterationOnce) {
  ASSERT_TRUE(runtime()) << dlerror();
  for (int32_t threads : {1, 2, 3, 8}) {
    ASSERT_GE(setThreadLimit(threads), 0);
    for (int64_t trips : {1, 2, 3, 7, 8, 9, 63, 1000, 100003}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", trips " + std::to_string(trips));
      Coverage c(trips);
      parallelFor(&Coverage::task, &c, trips);
      c.expectEachOnce();
    }
  }
  setThreadLimit(0);
}

TEST(CpuParallelFor, NoTripsCallNothingHarmful) {
  // A loop whose upper bound is below its lower one has 0 trips: at most
  // one empty range, never an index.
  Coverage c(0);
  parallelFor(
      [](void *context, int64_t begin, int64_t end) {
        if (begin != end)
          static_cast<Coverage *>(context)->badRanges.fetch_add(1);
      },
      &c, 0);
  EXPECT_EQ(c.badRanges.load(), 0);
}

TEST(CpuParallelFor, ConcurrentCallersAndNestedLoops) {
  // Four callers at once, each of whose tasks runs a loop of its own (a
  // GEMM inside a parallel body does): no deadlock, every index once.
  struct Outer {
    std::vector<std::unique_ptr<Coverage>> inner;
    explicit Outer(int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        inner.push_back(std::make_unique<Coverage>(257));
    }
    static void task(void *context, int64_t begin, int64_t end) {
      auto *o = static_cast<Outer *>(context);
      for (int64_t i = begin; i < end; ++i)
        parallelFor(&Coverage::task, o->inner[size_t(i)].get(), 257);
    }
  };
  std::vector<std::thread> callers;
  std::vector<Outer> outers;
  outers.reserve(4);
  for (int t = 0; t < 4; ++t)
    outers.emplace_back(33);
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&outers, t] {
      setThreadLimit(t % 2 ? 3 : 0);
      parallelFor(&Outer::task, &outers[size_t(t)], 33);
    });
  for (std::thread &t : callers)
    t.join();
  for (const Outer &o : outers)
    for (const std::unique_ptr<Coverage> &c : o.inner)
      c->expectEachOnce();
}

TEST(CpuParallelFor, CallerWaitsForASlowWorker) {
  // Ranges run by a thread other than the caller take 3 ms; the caller's
  // take 0.2 ms, so that a worker joins before they are all claimed. The
  // caller, its own ranges done, waits for the worker, and must not return
  // before every range ran (a missed wait leaves an index at 0: a
  // caller that returned after a short spin failed here). Repeated, so
  // that the worker's leaving races the caller's wait; the rounds that had
  // a worker are counted.
  struct Slow {
    Coverage coverage{64};
    std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> byWorker{0};
    static void task(void *context, int64_t begin, int64_t end) {
      auto *s = static_cast<Slow *>(context);
      bool worker = std::this_thread::get_id() != s->caller;
      s->byWorker.fetch_add(worker);
      std::this_thread::sleep_for(std::chrono::microseconds(worker ? 3000 : 200));
      Coverage::task(&s->coverage, begin, end);
    }
  };
  ASSERT_GE(setThreadLimit(2), 0);
  int withWorker = 0;
  for (int round = 0; round < 20; ++round) {
    Slow slow;
    parallelFor(&Slow::task, &slow, 64);
    slow.coverage.expectEachOnce();
    withWorker += slow.byWorker.load() > 0;
  }
  setThreadLimit(0);
  // A worker joined in most rounds (not asserted: a loaded machine may
  // leave it unscheduled throughout).
  RecordProperty("rounds_with_a_worker", withWorker);
}

/// An allocation no allocator grants (beyond the runtime's size limit: it
/// fails without asking the system).
constexpr size_t kHuge = size_t(1) << 62;

/// A 64-trip parallel loop whose ranges fail, by an allocation of kHuge
/// bytes, on the threads `failOn` names; the other threads' ranges take
/// 0.2 ms, so that the failing ones get ranges to run.
struct FailingLoop {
  enum FailOn { Workers, Caller, Everywhere } failOn;
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> failed{0};
  Coverage coverage{64};
  explicit FailingLoop(FailOn failOn) : failOn(failOn) {}

  static void task(void *context, int64_t begin, int64_t end) {
    auto *loop = static_cast<FailingLoop *>(context);
    bool worker = std::this_thread::get_id() != loop->caller;
    if (loop->failOn == Everywhere || (loop->failOn == Workers) == worker) {
      loop->failed.fetch_add(1);
      entry<void *(*)(size_t)>("_mlir_memref_to_llvm_alloc")(kHuge);
      loop->coverage.badRanges.fetch_add(1); // not reached: the allocation ends the range
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    Coverage::task(&loop->coverage, begin, end);
  }
  static void run(void *const *buffers) { parallelFor(&task, buffers[0], 64); }

  /// No index ran twice, and none ran after its range failed.
  void expectAtMostOnce() const {
    EXPECT_EQ(coverage.badRanges.load(), 0);
    for (size_t i = 0; i < coverage.hits.size(); ++i)
      ASSERT_LE(coverage.hits[i].load(), 1) << "index " << i;
  }
};

using GuardedCall = int32_t (*)(void (*)(void *const *), void *const *, size_t *);

TEST(CpuParallelFor, AFailedRangeEndsTheGuardedCall) {
  // On a worker the failure used to abort the process (a worker is in no
  // guarded call); on the caller it jumped out of the loop while workers
  // still ran its ranges. Now the call returns out-of-memory with the size,
  // whichever thread failed, and the thread's next calls work.
  auto guardedCall = entry<GuardedCall>("kiln_rt_guarded_call");
  ASSERT_TRUE(guardedCall) << dlerror();
  ASSERT_GE(setThreadLimit(2), 0);
  int workerFailures = 0;
  for (FailingLoop::FailOn failOn :
       {FailingLoop::Workers, FailingLoop::Caller, FailingLoop::Everywhere}) {
    for (int round = 0; round < 20; ++round) {
      SCOPED_TRACE("fail on " + std::to_string(int(failOn)) + ", round " + std::to_string(round));
      FailingLoop loop(failOn);
      void *buffers[] = {&loop};
      size_t bytes = 0;
      int32_t status = guardedCall(&FailingLoop::run, buffers, &bytes);
      loop.expectAtMostOnce();
      if (loop.failed.load() > 0) {
        EXPECT_EQ(status, kKilnCallOutOfMemory);
        EXPECT_EQ(bytes, kHuge);
      } else {
        // The threads that were to fail ran no range (no worker joined, or
        // workers took every range).
        EXPECT_NE(failOn, FailingLoop::Everywhere);
        EXPECT_EQ(status, kKilnCallOk);
        loop.coverage.expectEachOnce();
      }
      workerFailures += failOn == FailingLoop::Workers && loop.failed.load() > 0;
      // The thread's guarded calls and the pool are as before.
      Coverage after(64);
      void *afterBuffers[] = {&after};
      EXPECT_EQ(guardedCall([](void *const *b) { parallelFor(&Coverage::task, b[0], 64); },
                            afterBuffers, nullptr),
                kKilnCallOk);
      after.expectEachOnce();
    }
  }
  setThreadLimit(0);
  RecordProperty("rounds_a_worker_failed", workerFailures);
}

TEST(CpuParallelForDeathTest, AFailedRangeOutsideAGuardedCallAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        setThreadLimit(2);
        FailingLoop loop(FailingLoop::Everywhere);
        parallelFor(&FailingLoop::task, &loop, 64);
      },
      "could not allocate 4611686018427387904 bytes");
}

/// A host callback handler that records the threads it ran on.
struct Callbacks {
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> calls{0}, elsewhere{0};
  int32_t result = 0;
  static int32_t handler(void *context, int64_t index, void *const *) {
    auto *c = static_cast<Callbacks *>(context);
    c->calls.fetch_add(1);
    c->elsewhere.fetch_add(std::this_thread::get_id() != c->caller || index != 7);
    return c->result;
  }
  static void task(void *context, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      KilnMemRef1<int64_t> none{nullptr, nullptr, 0, {0}, {1}};
      entry<void (*)(int64_t, KilnMemRef1<int64_t> *)>("_mlir_ciface_kiln_rt_host_callback")(
          7, &none);
    }
  }
};

TEST(CpuParallelFor, HostCallbacksRunOnTheCallingThread) {
  // The handler is the caller's (the Python package's takes the GIL, which
  // the caller may hold while it waits): a worker running a range that
  // calls back would abort (no handler) or deadlock.
  auto guardedCall = entry<GuardedCall>("kiln_rt_guarded_call");
  using SetCallback = void (*)(KilnHostCallbackFn, void *, KilnHostCallbackFn *, void **);
  auto setCallback = entry<SetCallback>("kiln_rt_set_host_callback");
  ASSERT_TRUE(guardedCall && setCallback) << dlerror();
  ASSERT_GE(setThreadLimit(2), 0);
  for (int32_t result : {0, 1}) {
    Callbacks callbacks;
    callbacks.result = result;
    setCallback(&Callbacks::handler, &callbacks, nullptr, nullptr);
    void *buffers[] = {&callbacks};
    int32_t status = guardedCall(
        [](void *const *b) { parallelFor(&Callbacks::task, b[0], 64); }, buffers, nullptr);
    setCallback(nullptr, nullptr, nullptr, nullptr);
    EXPECT_EQ(callbacks.elsewhere.load(), 0);
    if (result == 0) {
      EXPECT_EQ(status, kKilnCallOk);
      EXPECT_EQ(callbacks.calls.load(), 64);
    } else {
      EXPECT_EQ(status, kKilnCallCallbackFailed);
      EXPECT_EQ(callbacks.calls.load(), 1); // the first failure ends the call
    }
  }
  setThreadLimit(0);
}

} // namespace
