#include "stepformer/compute_threads.h"

#include <omp.h>

#include <atomic>
#include <climits>

namespace stepformer {
namespace {

std::atomic<int> reservations{0};
thread_local int held = 0;  // UsingReservedCores on the calling thread

}  // namespace

bool release_thread_team() {
    if (omp_in_parallel()) return false;
    // libgomp frees the calling thread's pool of worker threads (its "host" resources); other
    // threads' teams are untouched.
    return omp_pause_resource_all(omp_pause_soft) == 0;
}

int thread_team_limit() {
    return held == 0 && reservations.load(std::memory_order_relaxed) > 0 ? 1 : INT_MAX;
}

std::shared_ptr<const void> reserve_cores() {
    reservations.fetch_add(1, std::memory_order_relaxed);
    return std::shared_ptr<const void>(nullptr, [](const void*) { reservations.fetch_sub(1, std::memory_order_relaxed); });
}

UsingReservedCores::UsingReservedCores() { ++held; }

UsingReservedCores::~UsingReservedCores() { --held; }

}  // namespace stepformer
