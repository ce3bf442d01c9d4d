// Which device computes: the GPUs this build can use and the choice of a backend by the user's
// word ("cpu", "gpu", "auto"), for the CLI's --backend and the app.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/message.h"

namespace stepformer {

struct ComputeDevice {
    std::string name;  // "llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H100 80GB HBM3"
    std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
    bool usable = false;
    std::string why;   // what is missing when not usable
};

// The Vulkan devices, in the driver's order; empty when this build has no Vulkan backend or the
// machine no Vulkan driver.
std::vector<ComputeDevice> gpu_devices();
// Whether this build has the Vulkan backend at all.
bool gpu_backend_built();
// The index into `devices` that "gpu" computes on (a discrete GPU, else integrated, virtual, other,
// and a CPU device last), or that "auto" does (no CPU device: the CPU backend is faster there);
// -1 for none.
int gpu_device_for(const std::vector<ComputeDevice>& devices, bool for_auto = false);

// The user asked for a backend that cannot be made here ("gpu" without a usable device).
struct BackendUnavailable : Error {
    using Error::Error;
};

// The device stopped working under a running computation (a driver reset, a GPU taken away): what
// it computed since the last synchronisation is lost, and the caller goes on with another backend
// (the host's copies of weights and traces are intact).
struct DeviceLost : Error {
    using Error::Error;
};

// "cpu": the CPU backend. "gpu": the Vulkan backend on the best usable device, a CPU device such
// as lavapipe included; throws BackendUnavailable saying why not. "auto": a discrete, integrated
// or virtual GPU when there is one, else the CPU, and then `note` says why (once, for the user).
// Anything else: std::invalid_argument naming the choices.
std::unique_ptr<Backend> choose_backend(const std::string& choice, int threads = 0, std::string* note = nullptr);

}  // namespace stepformer
