// The CPU backend's worker threads, seen from a process with several threads that compute.
//
// The CPU kernels run on OpenMP teams. A team's worker threads belong to the thread that started
// it and stay, idle, for that thread's next kernel. libgomp counts every such team: once the
// process holds more of its threads than there are cores, every team's threads sleep between
// parallel regions instead of spinning, and each region pays a wake-up. In the app a training run
// beside the teams of the GUI thread and of a pool thread that had computed a view's pass took
// ~440 context switches a tutorial-size step (docs/cpu_speed.md, "The Train dock"). So:
//   - a thread that computes now and then gives its team back when it is done
//     (release_thread_team);
//   - a run that computes most (a training run) reserves the cores where it is started
//     (reserve_cores) and computes with them on its thread (UsingReservedCores): while the
//     reservation lasts, every other thread's kernels run on that thread alone, starting no team.
// The CPU kernels' numbers do not depend on this, but for the order of a few sums (a gradient's
// sum of squares) taken in per-thread parts.
#pragma once

#include <memory>

namespace stepformer {

// Lets the calling thread's idle worker threads go (its next kernel starts a new team). Not
// inside a kernel. False where there is nothing to let go (inside a parallel region).
bool release_thread_team();

// At most how many threads the calling thread's kernels use: 1 while the cores are reserved and
// the calling thread is not using the reservation, else no limit (the backend's own count).
int thread_team_limit();

// Reserves the cores until the returned handle (and every copy of it) goes, on whichever thread.
// Made by the thread that starts a run, so that its own kernels run alone from then on.
std::shared_ptr<const void> reserve_cores();

// The calling thread computes with the reserved cores while this lives (on the run's thread).
class UsingReservedCores {
public:
    UsingReservedCores();
    ~UsingReservedCores();
    UsingReservedCores(const UsingReservedCores&) = delete;
    UsingReservedCores& operator=(const UsingReservedCores&) = delete;
};

}  // namespace stepformer
