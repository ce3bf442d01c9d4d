// stepformer/compute_threads.h: a run that reserves the cores keeps its threads, every other
// thread's kernels run alone meanwhile (so no idle OpenMP team makes the run's threads sleep
// between kernels), the reservation ends with its last handle, and the CPU backend's numbers do
// not change with the limit.
#include <gtest/gtest.h>

#include <climits>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/compute_threads.h"

using namespace stepformer;

namespace {

int limit_on_another_thread(bool using_reserved) {
    int limit = 0;
    std::thread([&] {
        if (using_reserved) {
            const UsingReservedCores using_cores;
            limit = thread_team_limit();
        } else {
            limit = thread_team_limit();
        }
    }).join();
    return limit;
}

TEST(ComputeThreads, AReservationLimitsEveryThreadButTheOneUsingIt) {
    EXPECT_EQ(thread_team_limit(), INT_MAX);
    EXPECT_EQ(limit_on_another_thread(false), INT_MAX);
    std::shared_ptr<const void> cores = reserve_cores();
    EXPECT_EQ(thread_team_limit(), 1) << "the thread that reserved, not using the reservation";
    EXPECT_EQ(limit_on_another_thread(false), 1);
    EXPECT_EQ(limit_on_another_thread(true), INT_MAX) << "the run's thread";
    {
        const UsingReservedCores using_cores;
        EXPECT_EQ(thread_team_limit(), INT_MAX);
    }
    EXPECT_EQ(thread_team_limit(), 1);
    std::shared_ptr<const void> copy = cores;
    cores.reset();
    EXPECT_EQ(thread_team_limit(), 1) << "a copy of the handle still holds the cores";
    copy.reset();
    EXPECT_EQ(thread_team_limit(), INT_MAX);
    EXPECT_EQ(limit_on_another_thread(false), INT_MAX);
}

TEST(ComputeThreads, AThreadGivesItsTeamBackOutsideAKernel) {
    const auto cpu = make_cpu_backend(2);
    std::vector<float> a(1 << 20, 1.0f), b(a.size(), 2.0f), out(a.size());
    cpu->add_forward(out.data(), a.data(), b.data(), int64_t(a.size()));  // a team of two, kept
    EXPECT_TRUE(release_thread_team());
    EXPECT_TRUE(release_thread_team()) << "nothing left to let go is no error";
    cpu->add_forward(out.data(), a.data(), b.data(), int64_t(a.size()));  // a new team
    EXPECT_EQ(out[12345], 3.0f);
}

// The limit changes how a kernel's work is split, not its numbers: a linear layer and its
// backward on a two-thread CPU backend, with the cores reserved elsewhere and not.
TEST(ComputeThreads, TheCpuBackendsNumbersDoNotChangeWithTheLimit) {
    const auto cpu = make_cpu_backend(2);
    const int N = 37, I = 300, O = 257;
    std::mt19937 g(5);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> x(size_t(N) * I), W(size_t(O) * I), dy(size_t(N) * O);
    for (auto* v : {&x, &W, &dy})
        for (float& e : *v) e = d(g);
    const auto run = [&] {
        std::vector<float> y(size_t(N) * O), dx(x.size()), dW(W.size());
        cpu->linear_forward(y.data(), x.data(), W.data(), N, I, O);
        cpu->linear_backward(dx.data(), dW.data(), dy.data(), x.data(), W.data(), N, I, O, false, false);
        return std::vector<std::vector<float>>{y, dx, dW};
    };
    const auto free_run = run();
    const auto cores = reserve_cores();
    ASSERT_EQ(thread_team_limit(), 1);
    EXPECT_EQ(run(), free_run);
}

}  // namespace
