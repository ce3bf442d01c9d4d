// Which device computes the app's numbers: the CPU backend or the Vulkan one ("gpu").
//
// One backend per device for the whole process, made on first use and kept until exit: every
// model, trace and training run computed on a backend refers to it, on any thread, for as long
// as it lives, and a widget may keep a trace after the model that made it is gone. A GPU lost
// under a computation (stepformer::DeviceLost) is set aside — still alive for whatever refers to
// it — and the next request for the GPU makes a new backend.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <QCoreApplication>
#include <QString>

namespace stepformer {
class Backend;
}

class ComputeDevices {
    Q_DECLARE_TR_FUNCTIONS(ComputeDevices)

public:
    enum class Kind { Cpu, Gpu };
    using GpuFactory = std::function<std::unique_ptr<stepformer::Backend>()>;

    static ComputeDevices& instance();

    // "cpu" | "gpu"; kindFromKey also takes "auto": the GPU when there is a discrete, integrated
    // or virtual one (not a CPU device such as lavapipe), else the CPU. nullopt for anything else.
    static QString key(Kind kind);
    std::optional<Kind> kindFromKey(const QString& key);

    // The backend of `kind`. For the GPU: made on first use; null when there is none, and then
    // *why says why (no Vulkan driver, no usable device, a build without Vulkan). Thread-safe.
    stepformer::Backend* backend(Kind kind, QString* why = nullptr);
    Kind kindOf(const stepformer::Backend& backend) const;

    // The device "gpu" computes on, without making a backend (the menu's text); empty and *why
    // when there is none. The list of devices is read once.
    QString gpuName(QString* why = nullptr);

    // After stepformer::DeviceLost from `lost`: the next backend(Gpu) makes a new one.
    void setAside(stepformer::Backend* lost);

    // For people: "GPU — NVIDIA H100 80GB HBM3", "CPU — 2 threads".
    static QString label(const stepformer::Backend& backend);

    // At exit, once nothing computes or refers to them any more (the window is gone, the thread
    // pool idle): the GPU backends and their device memory go now, not in the static destructors,
    // which may run after the Vulkan driver's own.
    void releaseAll();

    // Tests: the GPU comes from `factory` instead of the Vulkan driver (an empty function: the
    // driver again); a GPU made before is set aside.
    void setGpuFactoryForTesting(GpuFactory factory);

private:
    ComputeDevices() = default;
    void listDevices();  // under mu_

    std::mutex mu_;
    bool listed_ = false;
    QString gpuName_, gpuWhy_;
    bool autoTakesGpu_ = false;  // the GPU is a discrete, integrated or virtual one
    GpuFactory factory_;
    std::unique_ptr<stepformer::Backend> gpu_;
    std::vector<std::unique_ptr<stepformer::Backend>> setAside_;  // lost, still referred to
};
