#include "stepformer/backend_counters.h"

namespace stepformer {

BackendCounters BackendCounters::since(const BackendCounters& before) const {
    BackendCounters d;
    d.dispatches = dispatches - before.dispatches;
    d.barriers = barriers - before.barriers;
    d.submissions = submissions - before.submissions;
    d.recordings = recordings - before.recordings;
    d.replays = replays - before.replays;
    d.uploads = uploads - before.uploads;
    d.bytes_uploaded = bytes_uploaded - before.bytes_uploaded;
    d.downloads = downloads - before.downloads;
    d.bytes_downloaded = bytes_downloaded - before.bytes_downloaded;
    d.allocations = allocations - before.allocations;
    d.bytes_allocated = bytes_allocated - before.bytes_allocated;
    d.timed_dispatches = timed_dispatches - before.timed_dispatches;
    for (const auto& [family, ms] : device_ms) {
        const auto it = before.device_ms.find(family);
        const double diff = ms - (it == before.device_ms.end() ? 0.0 : it->second);
        if (diff > 0.0) d.device_ms[family] = diff;
    }
    return d;
}

}  // namespace stepformer
