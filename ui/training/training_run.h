// Private to the Train dock's controller: a run's mailbox between its worker and the GUI thread
// (TrainingController::Shared), and what start() hands the worker (TrainingController::Run).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "training/training_controller.h"

// The mailbox between the worker and the GUI thread, and the run's controls.
struct TrainingController::Shared {
    stepformer::TrainControl control;
    std::mutex mu;
    // Steps and epoch snapshots in the order the worker produced them.
    struct Item {
        TrainingStep step;
        std::shared_ptr<const AttentionSnapshot> snapshot;  // set: a snapshot, not a step
    };
    std::vector<Item> pending;
    bool flushPosted = false;
    // The newest live trace not yet delivered (an older one is dropped: it is stale).
    std::shared_ptr<const LiveTrace> liveTrace;

    // Set by the GUI thread at any time (under mu); a change wakes a paced wait.
    std::condition_variable cv;
    int paceMs = 0;
    bool liveOn = false;
    int liveIntervalMs = kDefaultLiveIntervalMs;
    std::string liveSrc, liveTgt;

    template <typename F>
    void update(F&& change) {
        {
            std::lock_guard<std::mutex> lock(mu);
            change();
        }
        cv.notify_all();
    }
};

// What the worker needs, taken by start() on the GUI thread.
struct TrainingController::Run {
    quint64 gen = 0;
    std::shared_ptr<Shared> shared;
    stepformer::Config config;
    stepformer::Backend* backend = nullptr;
    std::shared_ptr<const void> hold;  // the cores and the heap's speed policy (holdForRun), given up when the job ends
    StartPoint from;
    std::vector<stepformer::Example> data;
    stepformer::TrainOptions options;
    std::string replaySrc, replayTgt;
    Qt::ConnectionType delivery = Qt::QueuedConnection;  // direct when synchronous
    Epilogue epilogue;
    bool synchronous = false;
    bool snapshots = true;
    bool keepOptimizer = true;
};
