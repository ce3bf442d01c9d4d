// What a backend with a device did (Backend::counters): the work a GPU's time goes to besides the
// arithmetic. On a machine without a GPU these figures (taken on lavapipe) are the measure of the
// GPU backend's plan: fewer dispatches, barriers, submissions and recordings a step.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace stepformer {

struct BackendCounters {
    uint64_t dispatches = 0;        // compute dispatches submitted (recorded anew or replayed)
    uint64_t barriers = 0;          // pipeline barriers submitted
    uint64_t submissions = 0;       // queue submissions (each one waited for)
    uint64_t recordings = 0;        // command buffers recorded anew
    uint64_t replays = 0;           // command buffers submitted again as recorded before (new arguments)
    uint64_t uploads = 0;           // host -> device copies (upload)
    uint64_t bytes_uploaded = 0;
    uint64_t downloads = 0;         // device -> host copies (download)
    uint64_t bytes_downloaded = 0;
    uint64_t allocations = 0;       // device memory allocations (vkAllocateMemory)
    uint64_t bytes_allocated = 0;
    // With profiling on and where the device has timestamps: device time per kernel family (its
    // shader's name), in milliseconds, and the dispatches timed.
    std::map<std::string, double> device_ms;
    uint64_t timed_dispatches = 0;

    // The counts between two readings (this one later than `before`).
    BackendCounters since(const BackendCounters& before) const;
};

}  // namespace stepformer
