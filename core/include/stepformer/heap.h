// Where glibc puts the tensors: a process-wide choice between speed and resident memory.
//
// Speed (the default, set when the first CPU backend is made): blocks of up to 64 MB come from
// the heap and freed ones are reused, so a training step does not page-fault on every tensor it
// allocates anew. Memory (the app's): blocks of 1 MB or more are mappings of their own, returned
// to the system when freed, so replacing a model gives its memory back.
// Without glibc these do nothing. docs/cpu_speed.md has the measurements.
#pragma once

namespace stepformer {

enum class HeapPolicy { Speed, Memory };

// The process's policy (thread-safe).
void set_heap_policy(HeapPolicy policy);
// The speed policy, unless set_heap_policy chose one already: what the first CPU backend calls,
// so that which of the two comes first does not matter.
void default_heap_policy();
// Gives the heap's freed memory back to the system (glibc keeps it for reuse unless asked): after
// a model, a trace or a training run is let go.
void release_free_memory();

}  // namespace stepformer
