// Which device computes the numbers on screen: Model › Compute On (CPU, GPU) and the status bar's
// device button, which opens the same menu. A switch keeps the model, the sentences and the step
// shown (the Session makes the model anew on the device and recomputes the trace); the choice is
// remembered ("compute/device") and the Train panel's runs use it too. The menu names the GPU
// only when it opens (finding it loads the Vulkan driver, which a start on the CPU does not).
#pragma once

#include <functional>

#include <QCoreApplication>
#include <QObject>
#include <QString>

#include "app/compute_devices.h"

class QAction;
class QActionGroup;
class QMenu;
class QWidget;
class Session;

class DeviceChooser : public QObject {
    Q_DECLARE_TR_FUNCTIONS(DeviceChooser)

public:
    // showError(title, message): how the window reports a device that cannot compute.
    DeviceChooser(Session* session, QWidget* window, std::function<void(const QString&, const QString&)> showError);

    // Model › Compute On (objectName "menuComputeOn"): actionComputeCpu, actionComputeGpu.
    QMenu* menu() const { return menu_; }
    QAction* cpuAction() const { return cpu_; }
    QAction* gpuAction() const { return gpu_; }

    // "cpu", "gpu" or "auto" (ComputeDevices::kindFromKey). False, and the window says why, when
    // the device cannot compute here; the Session then stays where it was. `remember`: saved as
    // the choice for the next start.
    bool choose(const QString& key, bool remember = true);
    // The choice for a start: `asked` (--backend) when given, else $STEPFORMER_BACKEND, else the
    // remembered one (when `remembered`), else "cpu".
    static QString startChoice(const QString& asked, bool remembered = true);

    // The menu's texts and the checked entry, from the Session's device.
    void refresh();

private:
    bool chooseKind(ComputeDevices::Kind kind, bool remember);

    Session* session_;
    QWidget* window_;
    std::function<void(const QString&, const QString&)> showError_;
    QMenu* menu_ = nullptr;
    QActionGroup* group_ = nullptr;
    QAction *cpu_ = nullptr, *gpu_ = nullptr;
};
