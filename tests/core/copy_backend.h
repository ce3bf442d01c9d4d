// A test-only backend, "cpu-copy": every kernel forwards to a CPU backend, but through a copy,
// as a backend whose memory is not the caller's (a GPU's) would run it. Inputs are copied into
// fresh scratch buffers; outputs are computed into scratch buffers pre-filled with NaN (or, for
// the arguments a kernel accumulates into or updates in place, with their current contents)
// and copied back. Each scratch buffer has guard zones on both sides that are checked after the
// kernel: a kernel that writes outside its buffer throws std::logic_error naming it.
//
// So a kernel that reads its output before writing it, writes an output only partly, relies on
// two arguments aliasing, or touches memory past a buffer's end gives different numbers (or an
// exception) on "cpu-copy" than on "cpu", and the backend-parametrised tests see it. It is the
// stand-in for a GPU backend until one exists, and the reference for how one must treat the
// interface's arguments.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "stepformer/backend.h"

namespace stepformer::testing {

// The backend's name in the registry.
inline constexpr const char* kCopyBackendName = "cpu-copy";

std::unique_ptr<Backend> make_copy_backend(int threads);

// Registers "cpu-copy" (once; later calls do nothing). Called by the tests that enumerate the
// registered backends, before they do.
void register_copy_backend();

// Every registered backend's name, "cpu-copy" included: what the backend-parametrised tests
// instantiate over (a GPU backend that registers itself joins them).
std::vector<std::string> registered_backends();

// A backend's name as a GoogleTest parameter name ("cpu-copy" -> "cpu_copy": gtest names are
// letters, digits and underscores).
std::string test_name(std::string backend);

}  // namespace stepformer::testing
