// Where glibc puts the tensors: a process-wide choice between speed and resident memory.
//
// Speed (the default, set when the first CPU backend is made): blocks of up to 64 MB come from
// the heap and freed ones are reused, so a training step does not page-fault on every tensor it
// allocates anew. Memory (the app's): blocks of 1 MB or more are mappings of their own, returned
// to the system when freed, so replacing a model gives its memory back.
// A training run in the app holds the speed policy while it trains (hold_speed_heap): under the
// memory policy each step gave its freed heap top back and page-faulted it in again (~530 faults a
// step at the tutorial's size), and the Train dock's step took 48-51 ms against 39-40 ms.
// Without glibc these do nothing but keep the bookkeeping. docs/cpu_speed.md has the measurements.
#pragma once

#include <memory>

namespace stepformer {

enum class HeapPolicy { Speed, Memory };

// The process's policy (thread-safe).
void set_heap_policy(HeapPolicy policy);
// The speed policy, unless set_heap_policy chose one already: what the first CPU backend calls,
// so that which of the two comes first does not matter.
void default_heap_policy();
// The policy glibc was last told (Speed before any: what the first CPU backend tells it).
HeapPolicy heap_policy_in_effect();
// The speed policy while the handle (or a copy) lives, whatever the process chose; the chosen one
// comes back with the last handle (thread-safe). Give the freed memory back after
// (release_free_memory): what the run freed stays in the heap meanwhile.
std::shared_ptr<const void> hold_speed_heap();
// Gives the heap's freed memory back to the system (glibc keeps it for reuse unless asked): after
// a model, a trace or a training run is let go.
void release_free_memory();

}  // namespace stepformer
