// The Vulkan compute backend, "gpu". Memory: every allocation is a storage buffer; a shader
// receives the buffer's device address plus the offset. On a discrete GPU the buffers are in the
// device's own memory and the host reaches them through copies (an allocation's address is then
// its device address, which only this backend reads); elsewhere they are host-visible,
// host-coherent and persistently mapped, and an allocation's address is its mapped pointer
// (STEPFORMER_VK_MEMORY=device|host overrides). Time: kernels are recorded into a command buffer
// and submitted at sync() (or when a download needs their results); uploads into memory that
// queued kernels may still use, or that the host cannot see, are recorded as copies, in order.
//
// Every kernel runs as a shader but one: the positional table is the CPU backend's (its float32
// sines and cosines, which a GPU's do not reproduce bit for bit), uploaded.
// Scalar results are handed to their host pointers after the queue has run. Matrix products use
// register-blocked 64 x 64 tiles when large, 16 x 16 shared-memory tiles on GPUs otherwise, and no
// tiles for smaller products on CPU devices (STEPFORMER_VK_GEMM=tiled|simple|strip|blocked overrides);
// softmax, LayerNorm and the per-row backward kernels split a row across a subgroup (or a
// workgroup for long rows) with subgroup reductions on GPUs that have subgroup arithmetic, and run
// one invocation per row elsewhere and on CPU devices (STEPFORMER_VK_REDUCE=subgroup|serial
// overrides). lavapipe ends an invocation's loops after 65535 iterations in all: sums over rows
// are dispatched in parts (column_sums), and the loss's row count is one reduction beforehand.
#pragma once

#include <memory>
#include <string>

#include "stepformer/backend.h"

namespace stepformer::vk {

// The backend on Vulkan device `device_index` (list_devices(); -1: gpu_device_for()). Throws
// std::runtime_error when there is no usable device.
std::unique_ptr<Backend> make_vulkan_backend(int device_index, int cpu_threads);

}  // namespace stepformer::vk
