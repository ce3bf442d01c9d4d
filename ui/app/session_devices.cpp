// Session: the device that computes its numbers (Model › Compute On), and losing a GPU.
#include "app/session.h"
#include "app/core_text.h"

#include <QTimer>

#include "stepformer/heap.h"
#include "stepformer/model.h"

using namespace stepformer;

ComputeDevices::Kind Session::computeDevice() const { return ComputeDevices::instance().kindOf(*backend_); }

QString Session::computeDeviceLabel() const { return ComputeDevices::label(*backend_); }

bool Session::setComputeDevice(ComputeDevices::Kind kind, QString* why) {
    Backend* be = ComputeDevices::instance().backend(kind, why);
    if (!be) return false;
    if (be == latest().backend) return true;
    if (!model_) {  // nothing computed yet: the device for what comes
        backend_ = be;
        trainer_->setBackend(be);
        emit computeDeviceChanged();
        return true;
    }
    Installed t = latest();
    t.backend = be;
    try {
        switchTo(std::move(t));  // the model made anew there, sharing the weights; the trace recomputed
    } catch (const std::exception& e) {
        if (why) *why = coreText(e);
        return false;
    }
    return true;
}

std::function<std::shared_ptr<const Trace>()> Session::cpuReplay() const {
    if (!model_ || !trace_ || liveTrace_ || computeDevice() == ComputeDevices::Kind::Cpu) return {};
    return [config = config_, weights = weights_, source = source_, target = target_] {
        const Transformer onCpu(config, weights, ComputeDevices::instance().backend(ComputeDevices::Kind::Cpu));
        return computePass(onCpu, config, source, target).trace;
    };
}

void Session::handleDeviceLost(const QString& message) {
    if (computeDevice() == ComputeDevices::Kind::Cpu) return;
    if (!model_) {
        fallBackToCpu(message);
        return;
    }
    ComputeDevices::instance().setAside(backend_);
    Installed t = latest();
    t.backend = ComputeDevices::instance().backend(ComputeDevices::Kind::Cpu);
    switchTo(std::move(t));  // the host's weights are intact: the same model on the CPU
    emit deviceLost(deviceLostText(message));
}

void Session::fallBackToCpu(const QString& message) {
    ComputeDevices::instance().setAside(backend_);
    backend_ = ComputeDevices::instance().backend(ComputeDevices::Kind::Cpu);
    trainer_->setBackend(backend_);
    if (model_) model_ = makeModel(config_, weights_);  // the host's weights are intact
    if (pending_ && pending_->backend != backend_) {  // a switch under way to the lost device: to the CPU instead
        Installed t = *pending_;
        t.backend = backend_;
        switchTo(std::move(t));  // (its pass on the lost device is superseded)
    }
    emit computeDeviceChanged();
    emit deviceLost(deviceLostText(message));
}
