// The Vulkan compute backend, "gpu". Memory: every allocation is a storage buffer in host-visible,
// host-coherent memory, persistently mapped; a kernel address is its mapped pointer, and a shader
// receives the buffer's device address plus the offset. Time: kernels are recorded into a command
// buffer and submitted at sync() (or when a download needs their results); uploads into memory
// that queued kernels may still use are recorded as copies, in order.
//
// First step of the backend: the forward pass's kernels run as shaders (all but the positional
// table, made once per length, dropout's mask and the loss), and the element-wise ones of the
// backward pass; every other kernel runs the CPU backend's code on the mapped memory after
// waiting for the queue. So the whole interface works and is tested on every device (lavapipe in CI), and the
// kernels move to shaders one by one.
#pragma once

#include <memory>
#include <string>

#include "stepformer/backend.h"

namespace stepformer::vk {

// The backend on Vulkan device `device_index` (list_devices(); -1: best_device()). Throws
// std::runtime_error when there is no usable device.
std::unique_ptr<Backend> make_vulkan_backend(int device_index, int cpu_threads);

}  // namespace stepformer::vk
