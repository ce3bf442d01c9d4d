#include "app/compute_devices.h"

#include <QRegularExpression>
#include "app/core_text.h"

#include <algorithm>
#include <exception>
#include <string>

#include "stepformer/backend.h"
#include "stepformer/devices.h"
#include "widgets/text_util.h"

using namespace stepformer;
using ui_text::qs;

ComputeDevices& ComputeDevices::instance() {
    static ComputeDevices devices;
    return devices;
}

QString ComputeDevices::key(Kind kind) { return kind == Kind::Gpu ? QStringLiteral("gpu") : QStringLiteral("cpu"); }

std::optional<ComputeDevices::Kind> ComputeDevices::kindFromKey(const QString& key) {
    const QString k = key.trimmed().toLower();
    if (k == QLatin1String("cpu")) return Kind::Cpu;
    if (k == QLatin1String("gpu")) return Kind::Gpu;
    if (k == QLatin1String("auto")) {
        const std::lock_guard lock(mu_);
        listDevices();
        return autoTakesGpu_ ? Kind::Gpu : Kind::Cpu;
    }
    return std::nullopt;
}

void ComputeDevices::listDevices() {
    if (listed_) return;
    listed_ = true;
    if (factory_) {
        gpuName_ = tr("test device");
        autoTakesGpu_ = false;
        return;
    }
    if (!gpu_backend_built()) {
        gpuWhy_ = tr("this build has no GPU backend (it needs libvulkan-dev and glslc when built)");
        return;
    }
    std::vector<ComputeDevice> devices;
    try {
        devices = gpu_devices();
    } catch (const std::exception& e) {
        gpuWhy_ = tr("the Vulkan driver failed: %1").arg(coreText(e));
        return;
    }
    const int pick = gpu_device_for(devices);
    if (pick < 0) {
        gpuWhy_ = devices.empty() ? tr("no Vulkan device or driver on this machine") : tr("no usable Vulkan device");
        for (const ComputeDevice& d : devices)
            if (!d.usable) gpuWhy_ += QStringLiteral("; %1: %2").arg(qs(d.name), qs(d.why));
        return;
    }
    gpuName_ = qs(devices[size_t(pick)].name);
    autoTakesGpu_ = gpu_device_for(devices, /*for_auto=*/true) >= 0;
}

Backend* ComputeDevices::backend(Kind kind, QString* why) {
    if (kind == Kind::Cpu) return &default_backend();
    const std::lock_guard lock(mu_);
    if (gpu_) return gpu_.get();
    listDevices();
    try {
        if (factory_)
            gpu_ = factory_();
        else if (!gpuName_.isEmpty())
            gpu_ = choose_backend("gpu");
    } catch (const std::exception& e) {
        if (why) *why = coreText(e);
        return nullptr;
    }
    if (!gpu_ && why) *why = gpuWhy_;
    return gpu_.get();
}

ComputeDevices::Kind ComputeDevices::kindOf(const Backend& backend) const {
    return backend.host_memory() && backend.name() == "cpu" ? Kind::Cpu : Kind::Gpu;
}

QString ComputeDevices::gpuName(QString* why) {
    const std::lock_guard lock(mu_);
    listDevices();
    if (gpuName_.isEmpty() && why) *why = gpuWhy_;
    return gpuName_;
}

void ComputeDevices::setAside(Backend* lost) {
    const std::lock_guard lock(mu_);
    if (lost && gpu_.get() == lost) setAside_.push_back(std::move(gpu_));
}

QString ComputeDevices::label(const Backend& backend) {
    // describe() says "cpu, 2 threads" and "gpu, <device> (Vulkan)".
    QString d = qs(backend.describe());
    const QString name = qs(backend.name());
    if (d.startsWith(name + QStringLiteral(", "))) d = d.mid(name.size() + 2);
    if (d.endsWith(QStringLiteral(" (Vulkan)"))) d.chop(9);
    // The CPU's "2 threads" in the reader's language (and plural).
    static const QRegularExpression threads(QStringLiteral("^(\\d+) threads?$"));
    if (const auto m = threads.match(d); m.hasMatch()) d = tr("%n threads", nullptr, m.captured(1).toInt());
    return name == QLatin1String("cpu") ? tr("CPU — %1").arg(d) : tr("GPU — %1").arg(d);
}

void ComputeDevices::setGpuFactoryForTesting(GpuFactory factory) {
    const std::lock_guard lock(mu_);
    if (gpu_) setAside_.push_back(std::move(gpu_));
    factory_ = std::move(factory);
    listed_ = false;
    gpuName_.clear();
    gpuWhy_.clear();
}

void ComputeDevices::releaseAll() {
    const std::lock_guard lock(mu_);
    gpu_.reset();
    setAside_.clear();
}
