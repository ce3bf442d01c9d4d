// The thread pool for the app's own background work (a decode of a large model, the results
// table's passes, a new sentence's or model's pass): runInBackground(work).
//
// Why not Qt's global pool: Qt 6.4's raster engine splits large antialiased or translucent fills
// over the global pool and waits for its threads. Work of ours that fills the global pool would
// stall every such paint of the GUI thread until it finished (the monkey test saw the event loop
// blocked ~200 ms that way, in the architecture diagram's and the attention lines' paints).
//
// Why a lower priority: on two cores a pass (and its OpenMP team) beside a training run left the
// GUI thread a fraction of a core, and a relayout after a zoom took 300 ms instead of 60. The
// background threads yield to it (a few points of niceness, as the training thread); they still
// get every core the GUI thread leaves idle.
#pragma once

#include <utility>

#include <QtConcurrent/QtConcurrentRun>

class QThreadPool;

QThreadPool* backgroundPool();

// Lowers the calling thread's priority (Linux: 5 points of niceness; threads it starts later, such
// as its OpenMP team, inherit it). Once per thread; elsewhere a no-op.
void lowerThreadPriority();

// Why the pool's threads give their CPU worker threads back after each task: an idle OpenMP team
// kept by a pool thread made every parallel region of a training run sleep and wake
// (stepformer/compute_threads.h).
struct ReleaseThreadTeam {
    ReleaseThreadTeam() = default;
    ReleaseThreadTeam(const ReleaseThreadTeam&) = delete;
    ReleaseThreadTeam& operator=(const ReleaseThreadTeam&) = delete;
    ~ReleaseThreadTeam();
};

// QtConcurrent::run(backgroundPool(), work), the work at the lower priority.
template <class Work>
auto runInBackground(Work work) {
    return QtConcurrent::run(backgroundPool(), [work = std::move(work)]() mutable {
        lowerThreadPriority();
        const ReleaseThreadTeam release;  // when the work is done, whatever it returns or throws
        return work();
    });
}
