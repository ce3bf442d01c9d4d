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
    if (be == backend_) return true;
    Backend* const before = backend_;
    backend_ = be;
    trainer_->setBackend(be);
    if (model_) {
        try {
            model_ = makeModel(config_, weights_);
        } catch (const std::exception& e) {
            backend_ = before;
            trainer_->setBackend(before);
            if (why) *why = coreText(e);
            return false;
        }
        recomputeAfterModelChange();
    }
    emit computeDeviceChanged();
    if (model_) {
        emit modelChanged();
        emit traceChanged();
    }
    release_free_memory();
    // The device left keeps the buffers it freed for reuse (a GPU's on lavapipe are the host's
    // memory: a few hundred MB). Once the views have let go of its model and trace, they go.
    QTimer::singleShot(1500, this, [this, before] {
        if (before && before != backend_) before->trim();
        release_free_memory();
    });
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
    fallBackToCpu(message);
    if (!model_) return;
    recomputeAfterModelChange();
    emit modelChanged();
    emit traceChanged();
}

void Session::fallBackToCpu(const QString& message) {
    ComputeDevices::instance().setAside(backend_);
    backend_ = ComputeDevices::instance().backend(ComputeDevices::Kind::Cpu);
    trainer_->setBackend(backend_);
    if (model_) model_ = makeModel(config_, weights_);  // the host's weights are intact
    emit computeDeviceChanged();
    emit deviceLost(tr("The GPU stopped working (%1). Stepformer computes on the CPU now, with the same weights.")
                        .arg(message));
}
