// Two test-only backends that compute with the CPU backend but treat the interface's arguments
// as a GPU backend must, so that the backend-parametrised tests catch what only a GPU would show.
//
// Neither overrides a kernel: each receives every kernel call as data (Backend::run_elsewhere,
// backend_ops.h), whose argument list says what to copy and check.
//
// "cpu-copy": every kernel forwards to a CPU backend, but through a copy, as a backend whose
// memory is not the caller's would run it. Inputs are copied into fresh scratch buffers; outputs
// are computed into scratch buffers pre-filled with NaN (or, for the arguments a kernel
// accumulates into or updates in place, with their current contents) and copied back. Each
// scratch buffer has guard zones on both sides that are checked after the kernel: a kernel that
// writes outside its buffer throws std::logic_error naming it. So a kernel that reads its output
// before writing it, writes an output only partly, relies on two arguments aliasing, or touches
// memory past a buffer's end gives different numbers (or an exception) on "cpu-copy" than on
// "cpu". Its memory is still the host's (host_memory()): the model's host pointers are fine.
//
// "cpu-device": the stand-in for a GPU as the model sees one. host_memory() is false; kernel
// addresses must come from its alloc(), which keeps a table of live allocations (with guard zones
// either side, checked at release() and sync()), and a kernel given a host pointer, or a range
// that runs past its allocation, throws std::logic_error naming the kernel and the argument (the
// scalar results, a loss or a sum of squares, are host pointers by contract). Kernels and
// uploads are checked when called and queued, one queue per calling thread; the queue runs, on a
// "cpu-copy" backend so that its checks apply too, at that thread's next sync() or download()
// (or release(), which waits for the thread's kernels as cudaFree does). So scalar results
// appear only after sync(), a pass that forgets to stage a tensor fails at the kernel that uses
// it, and device_sync_waits() counts how often a caller waited for the device.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "stepformer/backend.h"

namespace stepformer::testing {

// The backends' names in the registry.
inline constexpr const char* kCopyBackendName = "cpu-copy";
inline constexpr const char* kDeviceBackendName = "cpu-device";

std::unique_ptr<Backend> make_copy_backend(int threads);
std::unique_ptr<Backend> make_device_backend(int threads);
// A "cpu-device" backend that declines the kernels of the given families: they go to the
// interface's CPU fallback (Backend::run_elsewhere), which crosses this backend's memory with its
// download() and upload(), as it would for a GPU backend without those shaders.
std::unique_ptr<Backend> make_device_backend_declining(int threads, const std::vector<KernelFamily>& declined);

// A "cpu-device" backend's synchronisations that found queued work (a sync(), download() or
// release() of the calling thread with kernels or uploads still queued), since it was made or
// reset. Throws std::invalid_argument for any other backend.
size_t device_sync_waits(const Backend& be);
void reset_device_sync_waits(Backend& be);
// A "cpu-device" backend's bytes allocated and not released: 0 after a pass that leaks nothing.
// Throws std::invalid_argument for any other backend.
size_t device_live_bytes(const Backend& be);
// Makes a "cpu-device" backend's `waits`-th synchronisation from now (counted as
// device_sync_waits counts them) throw stepformer::DeviceLost, as a driver reset would, and every
// one after it: what was queued is lost. Throws std::invalid_argument for any other backend.
void lose_device_after(Backend& be, int waits);
// A "cpu-device" backend's bytes copied in (upload) and out (download) since it was made.
size_t device_bytes_uploaded(const Backend& be);
size_t device_bytes_downloaded(const Backend& be);

// Registers "cpu-copy" and "cpu-device" (once; later calls do nothing). Called by the tests that
// enumerate the registered backends, before they do.
void register_copy_backend();

// Every registered backend's name, "cpu-copy" and "cpu-device" included: what the
// backend-parametrised tests instantiate over (a GPU backend that registers itself joins them).
std::vector<std::string> registered_backends();

// A backend's name as a GoogleTest parameter name ("cpu-copy" -> "cpu_copy": gtest names are
// letters, digits and underscores).
std::string test_name(std::string backend);

}  // namespace stepformer::testing
